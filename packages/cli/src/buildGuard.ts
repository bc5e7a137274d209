import { dirname, isAbsolute, resolve } from 'node:path';
import { type CallContext, createGuard, type Disclosure, type Guard, type GuardPlugin } from '@toolgate/core';
import { type CompiledPolicy, folderRules } from '@toolgate/folder-rules';
import { type ShellOptions, type ShellToolSpec, shell } from '@toolgate/shell';
import type { CliSettings } from './config/cliSettings.js';
import { loadConfig } from './config/loadConfig.js';
import { loadPlugins } from './config/loadPlugins.js';
import { UsageError } from './exitCodes.js';

/**
 * What the CLI's commands (check, explain, mcp, hook) build a guard from. A small options object on
 * purpose: commands that add plugins (audit, approvals) pass them in `plugins`.
 */
export interface BuildGuardOptions {
  /** Absent: inferred from the policy file's name (toolgate.yaml, .toolgate/policy.yaml are native). */
  dialect?: string | undefined;
  /** The policy file; absent: discovered (toolgate.yaml or .toolgate/ walking up, the user's, $TOOLGATE_POLICY). */
  policy?: string | undefined;
  /** Where policy discovery starts (default: `cwd`). */
  discoverFrom?: string;
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
}

export interface BuiltGuard {
  guard: Guard;
  policy: CompiledPolicy;
  /** The policy file used (given or discovered). */
  file: string;
  /** The CLI's sections of the policy file (`plugins:`, `hook:`). */
  settings: CliSettings;
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

function absolute(dir: string, flag: string): string {
  if (dir.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return isAbsolute(dir) ? resolve(dir) : resolve(process.cwd(), dir);
}

/**
 * Loads a policy in any dialect (given, or discovered with no flags) and composes the guard every CLI command
 * uses: shell, folder-rules, the policy file's third-party `plugins:`, then the command's own extras.
 *
 * @example
 * ```ts
 * const { guard, ctx } = await buildGuard({ dialect: 'openfang', policy: 'config.toml', cwd: '/srv/agent' });
 * const decision = await guard.check({ tool: 'file_read', args: { path: 'notes.md' } }, ctx);
 * ```
 */
export async function buildGuard(options: BuildGuardOptions): Promise<BuiltGuard> {
  if (options.policy !== undefined && options.policy.trim() === '')
    throw new UsageError('--policy must name a file');
  const env = options.env ?? process.env;
  const home = env.HOME;
  if (!home || !isAbsolute(home))
    throw new UsageError(`HOME must be set to an absolute path, got ${JSON.stringify(home)}`);
  const cwd = absolute(options.cwd ?? process.cwd(), '--cwd');
  const config = await loadConfig({
    ...(options.policy !== undefined ? { policy: absolute(options.policy, '--policy') } : {}),
    ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
    discoverFrom: options.discoverFrom ?? cwd,
    env,
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.overlays !== undefined
      ? { overlays: options.overlays.map((o) => absolute(o, '--overlay')) }
      : {}),
  });
  const { policy } = config;
  // A project's own policy (toolgate.yaml, .toolgate/policy.yaml) names its project: that is the workspace
  // when none is given, wherever below it the command runs. Otherwise the contract's default, the cwd.
  const projectRoot =
    config.origin === 'project' ? dirname(config.file).replace(/\/\.toolgate$/, '') : undefined;
  const workspace =
    options.workspace !== undefined ? absolute(options.workspace, '--workspace') : (projectRoot ?? cwd);
  const thirdParty = await loadPlugins(config.settings.plugins, config.file);
  const extraPlugins = [...thirdParty, ...(options.plugins ?? [])];
  // The shell plugin turns shell tools' commands into accesses folder-rules judges like any other; a
  // dialect's metacharacter setting (Hermes `allow_metacharacters`) travels in the compiled policy.
  const shellPlugin = shell(shellOptionsOf(policy));
  const guard = createGuard({
    plugins: [shellPlugin, folderRules({ policy }), ...extraPlugins],
    ...(options.disclosure ? { disclosure: options.disclosure } : {}),
  });
  const ctx: CallContext = {
    sessionId: options.sessionId ?? 'cli',
    agentId: options.agent ?? 'cli',
    cwd,
    workspace,
    home,
    env: { ...env },
  };
  return {
    guard,
    policy,
    file: config.file,
    settings: config.settings,
    ctx,
    extraPlugins: [shellPlugin, ...extraPlugins],
  };
}
