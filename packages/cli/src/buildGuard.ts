import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { type CallContext, createGuard, type Disclosure, type Guard, type GuardPlugin } from '@toolgate/core';
import { type CompiledPolicy, folderRules } from '@toolgate/folder-rules';
import { type ShellOptions, type ShellToolSpec, shell } from '@toolgate/shell';
import type { CliSettings } from './config/cliSettings.js';
import { loadConfig } from './config/loadConfig.js';
import { loadPlugins } from './config/loadPlugins.js';
import { sandboxReadOnlyDirs } from './config/policyCache.js';
import { UsageError } from './exitCodes.js';

/**
 * What the CLI's commands (check, explain, mcp, hook) build a guard from. A small options object on
 * purpose: commands that add plugins (audit, approvals) pass them in `plugins`.
 */
export interface BuildGuardOptions {
  /** Absent: inferred from the file (its name, then the keys only one dialect reads). */
  dialect?: string | undefined;
  /**
   * The policy file; absent: discovered (toolgate.yaml or .toolgate/ walking up, the user's,
   * $TOOLGATE_POLICY) — for `--dialect wolo`, `~/.wolo/config.yaml` (seed 002).
   */
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
  /** More plugins chosen from the loaded policy (its dialect's audit trail, confirmation cap…). */
  pluginsFor?: (
    policy: CompiledPolicy,
    home: string,
  ) => readonly GuardPlugin[] | Promise<readonly GuardPlugin[]>;
  /** wolo `--allow-path/-P` (seed 002's `cli_paths`). */
  allowPaths?: readonly string[];
  /** wolo `--wild` (as `WOLO_WILD_MODE=true`). */
  wild?: boolean;
  /**
   * Flags a rewritten call's `toolgate sandbox-exec` gets besides the policy's (`--audit FILE`,
   * `--approvals NAME`): where the sandbox's network proxy records connections and who answers its prompts.
   */
  sandboxExecFlags?: readonly string[];
}

/**
 * The command that is running (bin/toolgate.cjs, or the bin.js shim), for a rewritten call that must start
 * `toolgate sandbox-exec`; undefined when this process is not the toolgate command (a library embedding the
 * CLI's guard): such calls are then not rewritten (unavailable, denied).
 */
function toolgateCommand(): string | undefined {
  const script = process.argv[1];
  return script !== undefined && isAbsolute(script) && /(?:toolgate\.cjs|bin\.js)$/.test(script)
    ? script
    : undefined;
}

/** The launcher of a rewritten call whose sandbox needs the network proxy (see SandboxOptions.network). */
function sandboxExecLauncher(
  file: string,
  options: BuildGuardOptions,
): ((socketPath: string) => string[]) | undefined {
  const bin = toolgateCommand();
  if (bin === undefined) return undefined;
  const fixed = [
    '--policy',
    file,
    ...(options.dialect !== undefined ? ['--dialect', options.dialect] : []),
    ...(options.agent !== undefined ? ['--agent', options.agent] : []),
    ...(options.overlays?.length
      ? ['--overlay', ...options.overlays.map((o) => absolute(o, '--overlay'))]
      : []),
    ...(options.sandboxExecFlags ?? []),
  ];
  return (socketPath) => [
    process.execPath,
    bin,
    'sandbox-exec',
    '--proxy-socket',
    socketPath,
    ...fixed,
    '--',
  ];
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

/**
 * wolo's command-line settings: `-P` paths (absolute, against this shell's directory), and the config file
 * when none is given — "Add to ~/.wolo/config.yaml", or with no file the seed's defaults (workdir and /tmp).
 */
function woloOptions(
  options: BuildGuardOptions,
  home: string,
): { cliPaths?: string[]; policy?: { file: string; source?: string } } {
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
  let env = options.env ?? process.env;
  const home = env.HOME;
  if (!home || !isAbsolute(home))
    throw new UsageError(`HOME must be set to an absolute path, got ${JSON.stringify(home)}`);
  const wolo = woloOptions(options, home);
  // "Enable via CLI: wolo --wild" — the same switch as "WOLO_WILD_MODE=true".
  if (options.wild) env = { ...env, WOLO_WILD_MODE: 'true' };
  const cwd = absolute(options.cwd ?? process.cwd(), '--cwd');
  const policyFile = options.policy !== undefined ? absolute(options.policy, '--policy') : wolo.policy?.file;
  const config = await loadConfig({
    ...(policyFile !== undefined ? { policy: policyFile } : {}),
    ...(wolo.policy?.source !== undefined ? { source: wolo.policy.source } : {}),
    ...(wolo.cliPaths ? { cliPaths: wolo.cliPaths } : {}),
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
  const extraPlugins = [
    ...thirdParty,
    ...(options.plugins ?? []),
    ...((await options.pluginsFor?.(policy, home)) ?? []),
  ];
  // The shell plugin turns shell tools' commands into accesses folder-rules judges like any other; a
  // dialect's metacharacter setting (Hermes `allow_metacharacters`) travels in the compiled policy.
  const shellPlugin = shell(shellOptionsOf(policy));
  // The policy's `sandbox: uncertain | always`: shell calls analysis cannot prove run under bubblewrap. The
  // package loads only for such a policy (a hook starts for every tool call).
  const sandboxer =
    policy.extras.sandbox === 'uncertain' || policy.extras.sandbox === 'always'
      ? (await import('@toolgate/sandbox')).sandbox({
          policy,
          readOnly: sandboxReadOnlyDirs(env),
          // A policy whose network goes through the sandbox's proxy: the rewritten line starts it itself.
          ...(policy.network !== undefined && !policy.network.unrestricted
            ? { network: { launcher: sandboxExecLauncher(config.file, options) } }
            : {}),
        })
      : undefined;
  const guard = createGuard({
    // The file's per-agent policies are chosen by `--agent` at load, never by an agent id a client or an
    // assistant declares for itself (an MCP client's name, a hook event): those get the global policy.
    plugins: [shellPlugin, folderRules({ policy, perAgent: false }), ...extraPlugins],
    ...(options.disclosure ? { disclosure: options.disclosure } : {}),
    ...(sandboxer ? { sandbox: sandboxer } : {}),
    // The policy's `uncertain: prompt`: what analysis cannot prove (and no sandbox runs) asks a human.
    ...(policy.extras.uncertain === 'prompt' ? { uncertain: 'prompt' as const } : {}),
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
