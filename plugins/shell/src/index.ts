export type { ArgSpec } from './argv.js';
export { extractAccesses } from './extractAccesses.js';
export type {
  CommandContext,
  CommandHandler,
  EmitOptions,
  ExtractOptions,
  Extraction,
  Metacharacters,
  UnknownCommands,
} from './extractTypes.js';
export { findMetacharacters } from './findMetacharacters.js';
export { ShellParseError } from './parseError.js';
export type { ParseMode } from './parseScript.js';
export { parseScript } from './parseScript.js';
export type { ShellOptions, ShellToolSpec } from './shell.js';
export { shell } from './shell.js';
export { commandTable } from './commands/table.js';
