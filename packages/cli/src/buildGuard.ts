import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { type CallContext, createGuard, type Disclosure, type Guard, type GuardPlugin } from '@toolgate/core';
import {
  type CompiledPolicy,
  DIALECTS,
  type DialectName,
  folderRules,
  loadPolicy,
} from '@toolgate/folder-rules';
import { sandbox, sandboxModeOf } from '@toolgate/sandbox';
import { type ShellOptions, type ShellToolSpec, shell } from '@toolgate/shell';
import { UsageError } from './exitCodes.js';

/**
 * What the CLI's commands (check, explain, mcp, hook) build a guard from. A small options object on
 * purpose: commands that add plugins (audit, approvals) pass them in `plugins`.
 */
export interface BuildGuardOptions {
  /** The policy's dialect; inferred from the file (its keys, then its name) when omitted. */
  dialect?: string;
  /** The policy file (wolo: default `~/.wolo/config.yaml`). */
  policy?: string;
  /** The agent's working directory (never the CLI's own unless none is given). */
  cwd?: string;
  /** Defaults to `cwd`. */
  workspace?: string;
  /** Per-agent overlay in the policy file, and the agent id of the context. */
  agent?: string;
  /** Per-agent overlay files applied over the policy. */
  overlays?: readonly string[];
  /** Where `HOME` and `${VAR}` come from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  sessionId?: string;
  disclosure?: Disclosure;
  /** Extra plugins composed after folder-rules (audit-log, approvals…). */
  plugins?: readonly GuardPlugin[];
  /** More plugins chosen from the loaded policy (its dialect's audit trail, confirmation cap…). */
  pluginsFor?: (policy: CompiledPolicy, home: string) => readonly GuardPlugin[];
  /** wolo `--allow-path/-P` (seed 002's `cli_paths`). */
  allowPaths?: readonly string[];
  /** wolo `--wild` (as `WOLO_WILD_MODE=true`). */
  wild?: boolean;
}

export interface BuiltGuard {
  guard: Guard;
  policy: CompiledPolicy;
  ctx: CallContext;
  /** Plugins composed besides folder-rules (shell and `plugins`), for commands that re-run a policy's own tests. */
  extraPlugins: readonly GuardPlugin[];
}

/**
 * The shell plugin's options from a policy: its metacharacter setting, the shell tools it adds
 * (`shell.tools`) and the tools it declares not to be shell (`shell.notShell`). A tool the policy's own
 * `tools` table declares with another op is no shell tool either, so both plugins agree on every name.
 */
export function shellOptionsOf(policy: CompiledPolicy): ShellOptions {
  const declared = Object.entries(policy.tools)
    .filter(([, spec]) => spec.op !== 'shell')
    .map(([name]) => name);
  const tools: Record<string, ShellToolSpec | false> = { ...(policy.shell?.tools ?? {}) };
  for (const name of declared) tools[name] = false;
  const notShell = [...new Set([...(policy.shell?.notShell ?? []), ...declared])];
  return {
    ...(policy.shell?.metacharacters ? { metacharacters: policy.shell.metacharacters } : {}),
    ...(Object.keys(tools).length > 0 ? { tools } : {}),
    ...(notShell.length > 0 ? { notShell } : {}),
  };
}

/**
 * wolo's command-line settings: `-P` paths (absolute, against this shell's directory), and the config file
 * when none is given — "Add to ~/.wolo/config.yaml", or with no file the seed's defaults (workdir and /tmp).
 */
function woloOptions(
  options: BuildGuardOptions,
  home: string,
): { cliPaths?: string[]; policy?: { file: string } | { file: string; source: string } } {
  const isWolo = options.dialect === 'wolo';
  if (!isWolo && (options.allowPaths?.length || options.wild))
    throw new UsageError('--allow-path and --wild are wolo options (--dialect wolo)');
  if (!isWolo) return {};
  const out: ReturnType<typeof woloOptions> = {};
  if (options.allowPaths?.length) out.cliPaths = options.allowPaths.map((p) => absolute(p, '--allow-path'));
  if (!options.policy) {
    const file = join(home, '.wolo', 'config.yaml');
    out.policy = existsSync(file) ? { file } : { file, source: 'path_safety: {}\n' };
  }
  return out;
}

function absolute(dir: string, flag: string): string {
  if (dir.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return isAbsolute(dir) ? resolve(dir) : resolve(process.cwd(), dir);
}

/**
 * Loads a policy in any dialect and composes the guard every CLI command uses.
 *
 * @example
 * ```ts
 * const { guard, ctx } = buildGuard({ dialect: 'openfang', policy: 'config.toml', cwd: '/srv/agent' });
 * const decision = await guard.check({ tool: 'file_read', args: { path: 'notes.md' } }, ctx);
 * ```
 */
export function buildGuard(options: BuildGuardOptions): BuiltGuard {
  if (options.dialect !== undefined && !(DIALECTS as readonly string[]).includes(options.dialect))
    throw new UsageError(
      `--dialect must be one of ${DIALECTS.join(', ')}, got ${JSON.stringify(options.dialect)}`,
    );
  let env = options.env ?? process.env;
  const home = env.HOME;
  if (!home || !isAbsolute(home))
    throw new UsageError(`HOME must be set to an absolute path, got ${JSON.stringify(home)}`);
  const wolo = woloOptions(options, home);
  if (!options.policy && !wolo.policy) throw new UsageError('--policy <file> is required');
  // "Enable via CLI: wolo --wild" — the same switch as "WOLO_WILD_MODE=true".
  if (options.wild) env = { ...env, WOLO_WILD_MODE: 'true' };
  const cwd = absolute(options.cwd ?? process.cwd(), '--cwd');
  const workspace = options.workspace === undefined ? cwd : absolute(options.workspace, '--workspace');
  const policy = loadPolicy({
    ...(options.dialect !== undefined ? { dialect: options.dialect as DialectName } : {}),
    ...(options.policy ? { file: absolute(options.policy, '--policy') } : (wolo.policy ?? {})),
    env,
    ...(wolo.cliPaths ? { cliPaths: wolo.cliPaths } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.overlays !== undefined
      ? { overlays: options.overlays.map((o) => absolute(o, '--overlay')) }
      : {}),
  });
  const extraPlugins = [...(options.plugins ?? []), ...(options.pluginsFor?.(policy, home) ?? [])];
  // The shell plugin turns shell tools' commands into accesses folder-rules judges like any other; a
  // dialect's metacharacter setting (Hermes `allow_metacharacters`) travels in the compiled policy.
  const shellPlugin = shell(shellOptionsOf(policy));
  const guard = createGuard({
    // The file's per-agent policies are chosen by `--agent` at load, never by an agent id a client or an
    // assistant declares for itself (an MCP client's name, a hook event): those get the global policy.
    plugins: [shellPlugin, folderRules({ policy, perAgent: false }), ...extraPlugins],
    ...(options.disclosure ? { disclosure: options.disclosure } : {}),
    // The policy's `sandbox: uncertain | always`: shell calls analysis cannot prove run under bubblewrap.
    ...(sandboxModeOf(policy) !== 'off' ? { sandbox: sandbox({ policy }) } : {}),
  });
  const ctx: CallContext = {
    sessionId: options.sessionId ?? 'cli',
    agentId: options.agent ?? 'cli',
    cwd,
    workspace,
    home,
    env: { ...env },
  };
  return { guard, policy, ctx, extraPlugins: [shellPlugin, ...extraPlugins] };
}
