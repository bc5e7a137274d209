import type { CommandHandler } from '../effects/extractTypes.js';
import { archives } from './archives.js';
import { awkFamily } from './awk.js';
import { buildTools } from './buildTools.js';
import { builtins } from './builtins.js';
import { bunDeno } from './bunDeno.js';
import { copyMove } from './copyMove.js';
import { findXargs } from './findXargs.js';
import { interpreters } from './interpreters.js';
import { jqFamily } from './jq.js';
import { network } from './network.js';
import { nodeFamily } from './node.js';
import { perlFamily } from './perl.js';
import { pythonFamily } from './python.js';
import { readers } from './readers.js';
import { scriptRunners } from './scriptRunners.js';
import { sedFamily } from './sed.js';
import { sqliteFamily } from './sqlite3.js';
import { wrappers } from './wrappers.js';
import { writers } from './writers.js';

/** Every command we know the argv semantics of. Anything else is an unknown command. */
export const commandTable: ReadonlyMap<string, CommandHandler> = new Map(
  Object.entries({
    ...builtins,
    ...readers,
    ...writers,
    ...copyMove,
    ...archives,
    ...network,
    ...wrappers,
    ...interpreters,
    ...findXargs,
    ...buildTools,
    // Program families with their own option tables and script readers (issue 13 class 3).
    ...sedFamily,
    ...awkFamily,
    ...perlFamily,
    // Replaces readers.ts' jq entry: jq's two-value options and --args need their own parser.
    ...jqFamily,
    ...sqliteFamily,
    ...pythonFamily,
    ...nodeFamily,
    ...bunDeno,
    ...scriptRunners,
  }),
);
