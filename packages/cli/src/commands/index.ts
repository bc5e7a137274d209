import type { Command } from 'commander';
import { registerAudit } from './audit.js';
import { registerCheck } from './check.js';
import { registerConsole } from './console.js';
import { registerDemo } from './demo.js';
import { registerExplain } from './explain.js';
import { registerHook } from './hook.js';
import { registerImport } from './import.js';
import { registerInit } from './init.js';
import { registerInstall } from './install.js';
import { registerLint } from './lint.js';
import { registerMcp } from './mcp.js';
import { registerRun } from './run.js';
import { registerSandboxExec } from './sandboxExec.js';
import { registerWebhooks } from './webhooks.js';

/**
 * Every subcommand registers itself here, one line each. A command's action returns its exit code (or sets
 * `process.exitCode`); `UsageError` and `ToolgateError` become exit 2 with a one-line message.
 */
export const commands: ReadonlyArray<(program: Command) => void> = [
  registerDemo,
  registerAudit,
  registerWebhooks,
  registerCheck,
  registerExplain,
  registerLint,
  registerMcp,
  registerHook,
  registerRun,
  registerSandboxExec,
  registerInstall,
  registerInit,
  registerImport,
  registerConsole,
];
