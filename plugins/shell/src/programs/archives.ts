import type { CommandHandler } from '../effects/extractTypes.js';
import { tar } from './tar.js';
import { unzip, zip } from './zip.js';

// bsdtar (libarchive) is not here: its options differ from GNU tar's (`-s PATTERN` takes a value), so it is
// an unknown command until it has its own table.
export const archives: Record<string, CommandHandler> = { tar, zip, unzip, gtar: tar };
