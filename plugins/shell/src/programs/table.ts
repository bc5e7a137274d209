import type { CommandHandler } from '../effects/extractTypes.js';
import { archives } from './archives.js';
import { awkFamily } from './awk.js';
import { builtins } from './builtins.js';
import { bunDeno } from './bunDeno.js';
import { checksums } from './checksums.js';
import { copyMove } from './copyMove.js';
import { findXargs } from './findXargs.js';
import { git } from './git/git.js';
import { interpreters } from './interpreters.js';
import { jqFamily } from './jq.js';
import { listing } from './listing.js';
import { make } from './make.js';
import { mktemp } from './mktemp.js';
import { network } from './network.js';
import { nodeFamily } from './node.js';
import { packageManagers } from './packageManagers.js';
import { perlFamily } from './perl.js';
import { pythonFamily } from './python.js';
import { readers } from './readers.js';
import { scriptRunners } from './scriptRunners.js';
import { sedFamily } from './sed.js';
import { sqliteFamily } from './sqlite3.js';
import { systemPackages } from './systemPackages.js';
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
    ...wrappers,
    ...interpreters,
    ...findXargs,
    // Program families with their own option tables and script readers (issue 13 class 3).
    ...sedFamily,
    ...awkFamily,
    ...perlFamily,
    ...jqFamily,
    ...sqliteFamily,
    ...pythonFamily,
    ...nodeFamily,
    ...bunDeno,
    ...scriptRunners,
    // Build tools and package managers last: they own pip/npm/… even where an interpreter family lists them.
    git,
    make,
    gmake: make,
    mktemp,
    ...packageManagers,
    ...systemPackages,
  }),
);
