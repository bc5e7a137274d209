#!/usr/bin/env node
import { main } from './main.js';
import { exitQuietlyOnClosedPipe } from './quietPipe.js';

exitQuietlyOnClosedPipe();
process.exitCode = await main(process.argv.slice(2));
