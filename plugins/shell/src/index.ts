export { extractAccesses } from './effects/extractAccesses.js';
export type {
  CommandContext,
  CommandHandler,
  EmitOptions,
  Extraction,
  ExtractOptions,
  Metacharacters,
  Reach,
  UnknownCommands,
} from './effects/extractTypes.js';
export { findMetacharacters } from './lex/findMetacharacters.js';
export { ShellParseError } from './lex/parseError.js';
export type { ParseMode } from './parse/parseScript.js';
export { parseScript } from './parse/parseScript.js';
export type { ArgSpec } from './programs/argv.js';
export { reachTable } from './programs/network/reach/reachTable.js';
export { commandTable } from './programs/table.js';
export type { ShellOptions, ShellToolSpec } from './shell.js';
export { shell } from './shell.js';
export { KNOWN_NOT_SHELL, KNOWN_TOOLS } from './tools/knownTools.js';
