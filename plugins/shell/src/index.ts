export type { ArgSpec } from './argv.js';
export { commandTable } from './commands/table.js';
export { extractAccesses } from './extractAccesses.js';
export type {
  CommandContext,
  CommandHandler,
  EmitOptions,
  Extraction,
  ExtractOptions,
  Metacharacters,
  UnknownCommands,
} from './extractTypes.js';
export { findMetacharacters } from './findMetacharacters.js';
export { ShellParseError } from './parseError.js';
export type { ParseMode } from './parseScript.js';
export { parseScript } from './parseScript.js';
export type { ShellOptions, ShellToolSpec } from './shell.js';
export { shell } from './shell.js';
