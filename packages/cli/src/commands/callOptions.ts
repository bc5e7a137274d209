import type { ToolCall } from '@toolgate/core';
import type { Command } from 'commander';
import type { BuildGuardOptions } from '../buildGuard.js';
import { UsageError } from '../exitCodes.js';

/** Options check and explain share (the CLI contract in ARCHITECTURE.md). */
export interface CallCommandOptions {
  dialect?: string;
  policy?: string;
  call: string;
  allowPath?: string[];
  wild?: boolean;
  cwd?: string;
  workspace?: string;
  agent?: string;
  overlay?: string[];
  json?: boolean;
  strict?: boolean;
}

export function addPolicyOptions(cmd: Command): Command {
  return cmd
    .option(
      '--dialect <dialect>',
      'toolgate | folderguard | wunderland | wolo | hermes | openfang (default: inferred from the file: toolgate for toolgate.yaml, .toolgate/policy.yaml, else from its keys)',
    )
    .option(
      '--policy <file>',
      'the policy file (default: toolgate.yaml or .toolgate/policy.yaml here or above, then ~/.config/toolgate/policy.yaml, then $TOOLGATE_POLICY; wolo: ~/.wolo/config.yaml)',
    )
    .option(
      '-P, --allow-path <dir...>',
      'wolo: writes allowed here without confirmation (seed 002 cli_paths)',
    )
    .option(
      '--wild',
      'wolo: wild mode, every check bypassed and every decision audited (WOLO_WILD_MODE=true)',
    )
    .option('--agent <name>', 'apply the per-agent overlay of this agent')
    .option('--overlay <file...>', 'per-agent overlay files, applied in order');
}

export function addCallOptions(cmd: Command): Command {
  return addPolicyOptions(cmd)
    .requiredOption('--call <json>', 'the tool call: {"tool": "...", "args": {...}}')
    .option('--cwd <dir>', "the agent's working directory (default: this shell's)")
    .option('--workspace <dir>', 'the workspace root (default: --cwd)')
    .option('--json', 'print JSON');
}

export function guardOptions(o: CallCommandOptions): BuildGuardOptions {
  return {
    ...(o.dialect !== undefined ? { dialect: o.dialect } : {}),
    ...(o.policy !== undefined ? { policy: o.policy } : {}),
    ...(o.allowPath !== undefined ? { allowPaths: o.allowPath } : {}),
    ...(o.wild ? { wild: true } : {}),
    ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
    ...(o.workspace !== undefined ? { workspace: o.workspace } : {}),
    ...(o.agent !== undefined ? { agent: o.agent } : {}),
    ...(o.overlay !== undefined ? { overlays: o.overlay } : {}),
  };
}

/** `--call` must be JSON `{tool: string, args?: object}`; anything else is a usage error (exit 2). */
export function parseCall(text: string): ToolCall {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--call is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError('--call must be a JSON object {"tool": "...", "args": {...}}');
  const { tool, args } = value as { tool?: unknown; args?: unknown };
  if (typeof tool !== 'string' || tool === '') throw new UsageError('--call needs a non-empty string "tool"');
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args)))
    throw new UsageError('--call "args" must be a JSON object');
  return { tool, args: (args ?? {}) as Record<string, unknown> };
}
