import { existsSync } from 'node:fs';
import type { Access, CallContext, Sandboxer, SandboxRewrite, ToolCall } from '@toolgate/core';
import { describeValue, ToolgateError } from '@toolgate/core';
import type { CompiledPolicy } from '@toolgate/folder-rules';
import { bwrapArgs, type SandboxNetwork } from './bwrapArgs.js';
import { compileMounts } from './compileMounts.js';
import type { WalkBounds } from './globWalk.js';
import { describeLimits, limitsOf } from './limits.js';
import { type NetworkMode, networkModeOf } from './network/networkMode.js';
import { existingProxyBase, newProxySocketPath, proxyBase } from './network/proxyDir.js';
import { probeSandbox } from './probe.js';
import { SandboxCompileError } from './sandboxError.js';
import { SANDBOX_MODES, type SandboxMode, sandboxModeOf } from './sandboxMode.js';
import { shellJoin } from './shellQuote.js';

export interface SandboxOptions {
  /** The compiled folder-rules policy the sandbox enforces (`folderRules(…).compiled` or `loadPolicy`). */
  policy: CompiledPolicy;
  /** Overrides the policy's `sandbox:` switch. */
  mode?: SandboxMode;
  /** The bubblewrap binary (default `bwrap` on PATH). */
  bwrap?: string;
  /** Bounds of the search for what the policy's globs match. */
  walk?: WalkBounds;
  /** Absolute paths kept read-only inside whatever the policy allows (see `CompileOptions.readOnly`). */
  readOnly?: readonly string[];
  /**
   * For a policy whose network section needs the filtering proxy (an allowlist, prompt rules): how a
   * rewritten command gets one. The host runs the rewritten line after the check has returned, so the proxy
   * must be started by the line itself: `launcher(socketPath)` is the argv that creates `socketPath` (its
   * directory must not exist), serves the proxy there, runs the rest of the line (bubblewrap) and stops the
   * proxy when it ends — the CLI's `toolgate sandbox-exec`. Absent: such calls are `unavailable` (denied).
   */
  network?: { launcher?: (socketPath: string) => string[] };
}

/** Argument names that carry a shell tool's command (Claude Code `Bash`, Gemini `run_shell_command`, …). */
const COMMAND_ARGS = ['command', 'cmd'];

const POSIX_SHELL = /^(?:\/(?:usr\/)?bin\/)?(?:ba|da|z|k)?sh$/;

/** The shell that runs a script-form command inside the sandbox (what the hosts run it with). */
const SHELL = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

export interface SandboxGuard extends Sandboxer {
  /**
   * The bubblewrap argv (program first, up to `--`) for one context; throws `SandboxCompileError`. With
   * `chdir: false` the command runs in the directory bubblewrap is started in rather than `ctx.cwd`.
   */
  prefix(
    ctx: Pick<CallContext, 'cwd' | 'workspace' | 'home' | 'env'>,
    approved?: readonly Access[],
    options?: { chdir?: boolean; network?: { socket: string } },
  ): string[];
  /**
   * The network the policy gives the sandbox: `proxy` needs a running proxy (`startNetworkProxy`) whose
   * socket `prefix` is given (`options.network.socket`); `prefix` throws without one.
   */
  readonly network: NetworkMode;
}

/**
 * The OS sandbox for `createGuard({sandbox})`: with the policy's `sandbox: uncertain`, a shell call analysis
 * cannot prove is rewritten to run inside bubblewrap with the same policy enforced by the kernel (with
 * `always`, every shell call nothing denies). Where bubblewrap cannot run, it answers `unavailable` and core
 * denies the call with SANDBOX_UNAVAILABLE.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { folderRules, loadPolicy } from '@toolgate/folder-rules';
 * import { shell } from '@toolgate/shell';
 * import { sandbox } from '@toolgate/sandbox';
 * const policy = loadPolicy({ dialect: 'toolgate', file: 'toolgate.yaml' }); // sandbox: uncertain
 * const guard = createGuard({ plugins: [shell(), folderRules({ policy })], sandbox: sandbox({ policy }) });
 * const d = await guard.check({ tool: 'Bash', args: { command: 'npm test' } }, ctx);
 * if (d.sandboxed) runShell(d.sandboxed.args.command); // bwrap … -- /bin/bash -c 'npm test'
 * ```
 */
export function sandbox(options: SandboxOptions): SandboxGuard {
  if (options === null || typeof options !== 'object')
    throw invalid('(options)', options, 'an object {policy, mode?, bwrap?, walk?, readOnly?}');
  const { policy } = options;
  if (policy === null || typeof policy !== 'object' || typeof policy.hash !== 'string')
    throw invalid('policy', policy, 'a CompiledPolicy from loadPolicy() or folderRules().compiled');
  if (options.mode !== undefined && !SANDBOX_MODES.includes(options.mode))
    throw invalid('mode', options.mode, '"off", "uncertain" or "always"');
  if (options.bwrap !== undefined && (typeof options.bwrap !== 'string' || options.bwrap === ''))
    throw invalid('bwrap', options.bwrap, 'the path of the bwrap binary');
  if (
    options.readOnly !== undefined &&
    (!Array.isArray(options.readOnly) ||
      !options.readOnly.every((p) => typeof p === 'string' && p.startsWith('/')))
  )
    throw invalid('readOnly', options.readOnly, 'a list of absolute paths');
  const mode = options.mode ?? sandboxModeOf(policy);
  const bin = options.bwrap ?? 'bwrap';
  const limits = limitsOf(policy); // the policy's `limits:` (./limits.ts)
  if (
    options.network !== undefined &&
    (options.network === null ||
      typeof options.network !== 'object' ||
      (options.network.launcher !== undefined && typeof options.network.launcher !== 'function'))
  )
    throw invalid('network', options.network, 'an object {launcher?: (socketPath) => argv}');
  const networkMode = networkModeOf(policy.network);

  const prefix: SandboxGuard['prefix'] = (ctx, approved = [], opts = {}) => {
    const plan = compileMounts(policy, ctx, {
      approved,
      ...(options.walk ? { walk: options.walk } : {}),
      ...(options.readOnly ? { readOnly: options.readOnly } : {}),
    });
    let network: SandboxNetwork;
    if (networkMode === 'shared') {
      const hide = existingProxyBase();
      network = hide === undefined ? { mode: 'shared' } : { mode: 'shared', hide };
    } else if (networkMode === 'none') network = { mode: 'none', hide: proxyBase() };
    else if (opts.network?.socket)
      network = { mode: 'proxy', socket: opts.network.socket, hide: proxyBase() };
    else
      throw new SandboxCompileError(
        "the policy's network section needs the sandbox's proxy, and none was started for this run",
      );
    return [bin, ...bwrapArgs(plan, { chdir: opts.chdir !== false, network, ...(limits ? { limits } : {}) })];
  };

  return {
    mode,
    prefix,
    network: networkMode,
    rewrite(call: ToolCall, ctx: CallContext, approved: readonly Access[]): SandboxRewrite {
      const available = probeSandbox(bin);
      if (!available.ok) return { unavailable: available.reason };
      // The host runs the rewritten line with the call's shell: it must be a POSIX shell to parse it.
      const shellArg = call.args.shell;
      if (shellArg !== undefined && (typeof shellArg !== 'string' || !POSIX_SHELL.test(shellArg)))
        return { unavailable: `cannot rewrite a command for the shell ${JSON.stringify(shellArg)}` };
      const key = COMMAND_ARGS.find((k) => call.args[k] !== undefined);
      const command = key === undefined ? undefined : call.args[key];
      let inner: string[];
      if (typeof command === 'string') inner = [SHELL, '-c', command];
      else if (Array.isArray(command) && command.length > 0 && command.every((w) => typeof w === 'string'))
        inner = command as string[];
      else
        return {
          unavailable: `cannot rewrite ${call.tool}: no command argument (${COMMAND_ARGS.join(' or ')}) to wrap`,
        };
      let argv: string[];
      try {
        // The host runs the line after this check has returned: a proxy must live as long as the line, so the
        // line starts it (the launcher: `toolgate sandbox-exec --proxy-socket PATH … -- bwrap …`), on a socket
        // path chosen here (unguessable; the launcher refuses a directory that exists).
        let launcher: string[] = [];
        let socket: string | undefined;
        if (networkMode === 'proxy') {
          if (!options.network?.launcher)
            return {
              unavailable:
                "the policy's network section needs the sandbox's proxy, and no launcher is configured to start it for a rewritten command",
            };
          socket = newProxySocketPath();
          launcher = options.network.launcher(socket);
        }
        // No --chdir: the host runs the wrapped command where it would have run the original.
        argv = [
          ...launcher,
          ...prefix(ctx, approved, { chdir: false, ...(socket ? { network: { socket } } : {}) }),
          ...inner,
        ];
      } catch (error) {
        return { unavailable: error instanceof Error ? error.message : String(error) };
      }
      const line = shellJoin(argv);
      return {
        argv,
        ...(limits ? { limits: describeLimits(limits) } : {}),
        command: line,
        args: { ...call.args, [key as string]: typeof command === 'string' ? line : argv },
      };
    },
  };
}

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `sandbox: option ${field} must be ${expected}, got ${describeValue(value)}`,
  );
}
