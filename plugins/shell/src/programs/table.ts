import type { CommandHandler } from '../effects/extractTypes.js';
import { archives } from './archives.js';
import { builtins } from './builtins.js';
import { checksums } from './checksums.js';
import { copyMove } from './copyMove.js';
import { editors } from './editors.js';
import { findXargs } from './findXargs.js';
import { git } from './git/git.js';
import { interpreters } from './interpreters.js';
import { listing } from './listing.js';
import { make } from './make.js';
import { network } from './network.js';
import { packageManagers } from './packageManagers.js';
import { readers } from './readers.js';
import { wrappers } from './wrappers.js';
import { writers } from './writers.js';

/** Every command we know the argv semantics of. Anything else is an unknown command. */
export const commandTable: ReadonlyMap<string, CommandHandler> = new Map(
  Object.entries({
    ...builtins,
    ...readers,
    ...listing,
    ...checksums,
    ...writers,
    ...copyMove,
    ...archives,
    ...network,
    ...editors,
    ...wrappers,
    ...interpreters,
    ...findXargs,
    git,
    make,
    gmake: make,
    ...packageManagers,
  }),
);
