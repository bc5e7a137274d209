#!/usr/bin/env node
// The command is bin/toolgate.cjs (see there why CommonJS); this path keeps working for scripts that ran it.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('../bin/toolgate.cjs');
