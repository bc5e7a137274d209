import { EventEmitter } from 'node:events';
import { CallStateImpl } from './callState.js';
import type { Disclosure } from './envelope.js';
import { describeValue, ToolCallRejectedError, ToolgateError } from './errors.js';
import { argsTouchPaths } from './findArgPaths.js';
import {
  createHooks,
  createPluginHooks,
  type GuardHooks,
  type HookTimeouts,
  interceptHooks,
  type PluginHooks,
} from './hooks.js';
import { type PluginFailure, toPluginFailure } from './pluginFailure.js';
import { DEFAULT_SESSION_LIMITS, type SessionLimits, SessionStore } from './sessionStore.js';
import { markAgentCode, type WritableProbe } from './stages/agentCode.js';
import {
  buildDecision,
  frozenList,
  malformedCall,
  nextId,
  observeDecision,
  toolNameOf,
} from './stages/decide.js';
import { judgeForSandbox, rewriteForSandbox, sandboxing } from './stages/sandboxCall.js';
import { settlePrompt } from './stages/settlePrompt.js';
import type {
  Access,
  ApprovalOutcome,
  CallContext,
  Decision,
  DescribeContext,
  Finding,
  RejectionEnvelope,
  SandboxedRun,
  Sandboxer,
  ToolCall,
  ToolDescriptor,
  Verdict,
} from './types.js';
import { validateContext } from './validateContext.js';

/** What a plugin is handed besides its hooks. */
export interface PluginApi {
  /** The guard's disclosure setting, for plugins that build their own messages. */
  readonly disclosure: Disclosure;
  /** Emit an event on `guard.events` (counters, warnings, delivery failures). */
  emit(event: string, payload: unknown): void;
}

/** A plugin: a name and a function that taps hooks. Factories validate options and compile before returning one. */
export interface GuardPlugin {
  readonly name: string;
  /**
   * This plugin judges the paths a call touches. When no installed plugin says so, a call that touches paths
   * gets the guard's `unguarded` answer (default deny) — a plugin that merely taps `beforeToolCall` for
   * another reason does not make the guard think a policy is in place.
   */
  readonly policy?: boolean;
  /**
   * Policies only: whether this policy would allow `access` wherever it lands — its operation is allowed on
   * every path (Wunderland's `dangerous` tier: no rules, default allow). An uncertain access is allowed only
   * when every installed policy says so; a policy without this method never lets one through.
   */
  coversUncertain?(access: Access, ctx: CallContext): boolean;
  /**
   * Policies only: whether the agent may write `realPath` (a program found there would run the agent's own
   * code). Core asks every policy about each access marked `runs`; one that says yes makes the call uncertain.
   * When no installed policy has this method, only the system's program directories count as not writable.
   */
  agentWritable?(realPath: string, ctx: CallContext): boolean;
  apply(hooks: PluginHooks, api: PluginApi): void;
}

export interface GuardOptions {
  plugins?: readonly GuardPlugin[];
  /** Whether rejection envelopes reveal the allowed roots (default `full`). */
  disclosure?: Disclosure;
  /** What an access that cannot be determined with certainty gets (default `deny`; never allow). */
  uncertain?: 'deny' | 'prompt';
  /** What a call that touches paths gets when no policy plugin is installed (default `deny`). */
  unguarded?: 'deny' | 'prompt' | 'allow';
  /** Per-hook bounds in milliseconds. */
  timeouts?: Partial<HookTimeouts>;
  /**
   * The OS sandbox compiled from the policy (`@toolgate/sandbox`): shell calls analysis cannot prove run
   * inside it instead of being denied (its `mode`: `uncertain`, or `always` for every shell call).
   */
  sandbox?: Sandboxer;
  /**
   * Bounds on per-session state (default `{max: 4096, idleMs: 3_600_000}`): the least recently used idle
   * session is forgotten first. Plugins that must not forget persist their state (approvals' `dir`).
   */
  sessions?: Partial<SessionLimits>;
}

export interface CheckOptions {
  /** `false`: do not ask anyone; a prompt verdict is returned as `action: 'prompt'` (CLI `check`, dry runs). */
  resolvePrompts?: boolean;
}

export type OnDeny = 'return' | 'throw';

export interface WrapOptions {
  /** On deny, resolve with the rejection envelope (default) or throw a `ToolCallRejectedError`. */
  onDeny?: OnDeny;
}

/** A guard bound to one session's context. */
export interface SessionGuard {
  readonly ctx: CallContext;
  check(call: ToolCall, options?: CheckOptions): Promise<Decision>;
  wrap<A extends Record<string, unknown>, R>(
    tool: string,
    fn: (args: A, ctx: CallContext) => R | Promise<R>,
    options?: WrapOptions,
  ): (args: A) => Promise<R | RejectionEnvelope>;
  describeTools(tools: readonly ToolDescriptor[]): ToolDescriptor[];
  /** Forget this session's state (grants, confirmations). */
  end(): void;
}

export interface Guard {
  /** Names of the installed plugins, in the order they were added. */
  readonly plugins: readonly string[];
  /** `plugin-error` (a decision failed closed), `observer-error`, and whatever plugins emit. */
  readonly events: EventEmitter;
  /** True once the guard has served its first call; no plugin can be added after that. */
  readonly frozen: boolean;
  use(plugin: GuardPlugin): Guard;
  check(call: ToolCall, ctx: CallContext, options?: CheckOptions): Promise<Decision>;
  session(ctx: CallContext): SessionGuard;
  endSession(sessionId: string): void;
  wrap<A extends Record<string, unknown>, R>(
    tool: string,
    fn: (args: A, ctx: CallContext) => R | Promise<R>,
    options?: WrapOptions,
  ): (args: A, ctx: CallContext) => Promise<R | RejectionEnvelope>;
  describeTools(tools: readonly ToolDescriptor[], ctx?: DescribeContext): ToolDescriptor[];
}

const DEFAULT_TIMEOUTS: HookTimeouts = {
  collectAccesses: 2_000,
  beforeToolCall: 2_000,
  onPrompt: 300_000,
  observers: 1_000,
};
const OPTION_KEYS = new Set([
  'plugins',
  'disclosure',
  'uncertain',
  'unguarded',
  'timeouts',
  'sandbox',
  'sessions',
]);

function invalidOption(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `createGuard: option ${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

function sessionLimits(options: GuardOptions): SessionLimits {
  const given = options.sessions === undefined ? {} : options.sessions;
  if (given === null || typeof given !== 'object') throw invalidOption('sessions', given, 'an object');
  const limits = { ...DEFAULT_SESSION_LIMITS };
  for (const [key, value] of Object.entries(given)) {
    if (key === 'max') {
      if (!Number.isInteger(value) || (value as number) < 1)
        throw invalidOption('sessions.max', value, 'a positive integer');
      limits.max = value as number;
    } else if (key === 'idleMs') {
      if (typeof value !== 'number' || !(value > 0))
        throw invalidOption('sessions.idleMs', value, 'a positive number of milliseconds');
      limits.idleMs = value;
    } else throw invalidOption(`sessions.${key}`, value, 'one of max, idleMs');
  }
  return limits;
}

function checkOptions(options: GuardOptions): HookTimeouts {
  if (options === null || typeof options !== 'object') throw invalidOption('(options)', options, 'an object');
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key))
      throw invalidOption(
        key,
        (options as Record<string, unknown>)[key],
        `one of ${[...OPTION_KEYS].join(', ')} (unknown option)`,
      );
  }
  if (options.plugins !== undefined && !Array.isArray(options.plugins))
    throw invalidOption('plugins', options.plugins, 'an array');
  if (
    options.disclosure !== undefined &&
    options.disclosure !== 'full' &&
    options.disclosure !== 'redacted'
  ) {
    throw invalidOption('disclosure', options.disclosure, '"full" or "redacted"');
  }
  if (options.uncertain !== undefined && options.uncertain !== 'deny' && options.uncertain !== 'prompt') {
    throw invalidOption('uncertain', options.uncertain, '"deny" or "prompt"');
  }
  if (options.unguarded !== undefined && !['deny', 'prompt', 'allow'].includes(options.unguarded)) {
    throw invalidOption('unguarded', options.unguarded, '"deny", "prompt" or "allow"');
  }
  const sb = options.sandbox;
  if (
    sb !== undefined &&
    (sb === null ||
      typeof sb !== 'object' ||
      !['off', 'uncertain', 'always'].includes(sb.mode) ||
      typeof sb.rewrite !== 'function')
  )
    throw invalidOption('sandbox', sb, 'a sandbox from @toolgate/sandbox ({mode, rewrite})');
  const timeouts = { ...DEFAULT_TIMEOUTS };
  for (const [key, value] of Object.entries(options.timeouts ?? {})) {
    if (!(key in DEFAULT_TIMEOUTS))
      throw invalidOption(`timeouts.${key}`, value, `one of ${Object.keys(DEFAULT_TIMEOUTS).join(', ')}`);
    if (typeof value !== 'number' || !(value > 0))
      throw invalidOption(`timeouts.${key}`, value, 'a positive number of milliseconds');
    timeouts[key as keyof HookTimeouts] = value;
  }
  return timeouts;
}

function pluginErrorFinding(failure: PluginFailure): Finding {
  return { action: 'deny', code: 'PLUGIN_ERROR', reason: failure.message, plugin: failure.plugin };
}

/**
 * Creates a guard from a stack of plugins. Plugins are applied in order, but taps run in the order their
 * declared stages say. The guard freezes on its first call.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * const guard = createGuard({ plugins: [myPolicy()] });
 * const decision = await guard.check({ tool: 'read_file', args: { path: '~/.ssh/id_rsa' } }, ctx);
 * if (decision.action !== 'allow') return decision.envelope;
 * ```
 */
export function createGuard(options: GuardOptions = {}): Guard {
  const timeouts = checkOptions(options);
  const disclosure: Disclosure = options.disclosure ?? 'full';
  const uncertainAction = options.uncertain ?? 'deny';
  const unguarded = options.unguarded ?? 'deny';
  const sandbox = options.sandbox;
  const events = new EventEmitter();
  const hooks: GuardHooks = createHooks();
  const names: string[] = [];
  const sessions = new SessionStore(sessionLimits(options));
  let frozen = false;
  let hasPolicy = false;
  const policies: string[] = [];
  const coverers: GuardPlugin[] = [];
  const writableProbes: WritableProbe[] = [];
  let everyPolicyCovers = false;

  const report = (event: string, payload: unknown) => {
    // An observer of events that throws must not break the guard either.
    try {
      events.emit(event, payload);
    } catch {
      /* swallowed on purpose: events are diagnostics */
    }
  };
  interceptHooks(hooks, timeouts, (failure) => report('observer-error', failure));
  const assertOpen = () => {
    if (frozen)
      throw new ToolgateError(
        'TOOLGATE_ERR_FROZEN',
        'the guard has served a call: plugins and taps can no longer be added',
      );
  };
  const api: PluginApi = Object.freeze({ disclosure, emit: report });

  const use = (plugin: GuardPlugin): Guard => {
    assertOpen();
    if (
      plugin === null ||
      typeof plugin !== 'object' ||
      typeof plugin.name !== 'string' ||
      plugin.name === '' ||
      typeof plugin.apply !== 'function'
    ) {
      throw new ToolgateError(
        'TOOLGATE_ERR_INVALID_PLUGIN',
        `a plugin must be an object with a non-empty name and an apply() function, got ${describeValue(plugin)}`,
      );
    }
    if (plugin.name === 'core' || names.includes(plugin.name)) {
      throw new ToolgateError(
        'TOOLGATE_ERR_DUPLICATE_PLUGIN',
        `a plugin named "${plugin.name}" is already installed`,
        { plugin: plugin.name },
      );
    }
    plugin.apply(createPluginHooks(hooks, plugin.name, assertOpen), api);
    names.push(plugin.name);
    if (plugin.policy === true) {
      policies.push(plugin.name);
      if (typeof plugin.coversUncertain === 'function') coverers.push(plugin);
      const probe = plugin.agentWritable;
      if (typeof probe === 'function') writableProbes.push((path, ctx) => probe.call(plugin, path, ctx));
    }
    return guard;
  };

  // Hooks whose taps are all synchronous are run by a plain loop over tapable's (stage-sorted, wrapped)
  // taps: the same order and the same wrappers as `hook.promise()`, without a promise per hook. This is what
  // keeps the pipeline under a microsecond per call with several plugins.
  let collectSync = true;
  let beforeSync = true;
  const freeze = () => {
    if (frozen) return;
    frozen = true;
    hasPolicy = policies.length > 0;
    everyPolicyCovers = hasPolicy && coverers.length === policies.length;
    collectSync = hooks.collectAccesses.taps.every((t) => t.type === 'sync');
    beforeSync = hooks.beforeToolCall.taps.every((t) => t.type === 'sync');
  };

  const collect = (call: ToolCall, state: CallStateImpl): Access[] | Promise<Access[]> => {
    if (!collectSync) return hooks.collectAccesses.promise([], call, state);
    let accesses: Access[] = [];
    for (const tap of hooks.collectAccesses.taps) accesses = tap.fn(accesses, call, state) as Access[];
    return accesses;
  };

  const judge = (
    call: ToolCall,
    state: CallStateImpl,
  ): Finding | undefined | Promise<Finding | undefined> => {
    // Uncertain accesses are never allowed (invariant 2), whatever plugins say, so core judges them first.
    // Under a sandboxing policy they are deferred instead: the kernel enforces the policy on them, unless a
    // plugin denies the call statically.
    const sandboxed = sandboxing(sandbox, state);
    for (const access of state.accesses) {
      if (access.certain || (everyPolicyCovers && coveredEverywhere(access, state))) continue;
      const finding: Finding = {
        action: sandboxed ? 'deny' : uncertainAction,
        code: 'PATH_UNCERTAIN',
        // A path that cannot be resolved, or a program whose effects analysis cannot prove (code it runs).
        reason:
          access.origin.endsWith(':argv') || access.origin.includes(':redirect')
            ? `cannot determine the path ${JSON.stringify(access.raw)} with certainty: ${access.reason ?? 'unknown'}`
            : `analysis cannot prove ${JSON.stringify(access.raw)}: ${access.reason ?? 'unknown'}`,
        access,
        plugin: 'core',
      };
      if (sandboxed) state.deferred.push(finding);
      else if (uncertainAction === 'deny') return finding;
      else state.prompt(finding);
    }
    if (sandboxed && beforeSync) {
      const result = judgeForSandbox(hooks.beforeToolCall.taps as never, call, state);
      return result ?? (hasPolicy ? undefined : unguardedFinding(call, state));
    }
    // Every tap runs (a non-policy plugin may still deny); then, when no installed plugin is a policy, a call
    // that touches paths gets the `unguarded` answer.
    if (!beforeSync) {
      return hooks.beforeToolCall
        .promise(call, state)
        .then((result) => result ?? (hasPolicy ? undefined : unguardedFinding(call, state)));
    }
    for (const tap of hooks.beforeToolCall.taps) {
      const result = tap.fn(call, state) as Finding | undefined;
      if (result !== undefined) return result;
    }
    return hasPolicy ? undefined : unguardedFinding(call, state);
  };

  // Invariant 2 allows no uncertain access — unless no path at all could be refused: every policy allows the
  // operation everywhere. A policy that throws here covers nothing (fail closed).
  const coveredEverywhere = (access: Access, state: CallStateImpl): boolean => {
    for (const p of coverers) {
      try {
        if (p.coversUncertain?.(access, state.ctx) !== true) return false;
      } catch {
        return false;
      }
    }
    return true;
  };

  // Without a policy nobody extracts a file tool's paths: an argument that names or looks like a path (or a
  // command) is enough for the `unguarded` answer, or `write_file /etc/passwd` would pass unseen.
  const unguardedFinding = (call: ToolCall, state: CallStateImpl): Finding | undefined => {
    if (unguarded === 'allow') return undefined;
    if (state.accesses.length === 0 && !argsTouchPaths(call.args)) return undefined;
    const access = state.accesses[0];
    const finding: Finding = {
      action: unguarded,
      code: 'NO_POLICY',
      reason: 'the call touches paths and no policy is configured',
      plugin: 'core',
      ...(access ? { access } : {}),
    };
    if (unguarded === 'deny') return finding;
    state.prompt(finding);
    return undefined;
  };

  const failClosed = (error: unknown): Finding => {
    const failure = toPluginFailure('core', 'check', error);
    report('plugin-error', failure);
    return pluginErrorFinding(failure);
  };

  /**
   * Stage 1: extractors turn the call into accesses (programs the agent can write mark it uncertain); stage 2:
   * core and the policies judge them. Synchronous when every tap is (the usual case): no promise, no
   * microtask per call; any throw or rejection on either way fails closed.
   */
  const collectAndJudge = (
    call: ToolCall,
    state: CallStateImpl,
  ): Finding | undefined | Promise<Finding | undefined> => {
    try {
      const accesses = collect(call, state);
      if (accesses instanceof Promise)
        return accesses.then((collected) => judgeCollected(call, state, collected)).catch(failClosed);
      return judgeCollected(call, state, accesses);
    } catch (error) {
      return failClosed(error);
    }
  };

  const judgeCollected = (
    call: ToolCall,
    state: CallStateImpl,
    accesses: Access[],
  ): Finding | undefined | Promise<Finding | undefined> => {
    state.accesses = frozenList(markAgentCode(accesses, state.ctx, writableProbes));
    const verdict = judge(call, state);
    if (verdict instanceof Promise) return verdict.then((v) => v ?? undefined, failClosed);
    return verdict ?? undefined;
  };

  async function check(call: ToolCall, ctx: CallContext, checkOpts: CheckOptions = {}): Promise<Decision> {
    validateContext(ctx);
    freeze();
    const time = Date.now();
    const session = sessions.acquire(ctx.sessionId, time);
    try {
      return await decideCall(call, ctx, checkOpts, session.store, time);
    } finally {
      sessions.release(session);
    }
  }

  async function decideCall(
    call: ToolCall,
    ctx: CallContext,
    checkOpts: CheckOptions,
    store: Map<string, unknown>,
    time: number,
  ): Promise<Decision> {
    const state = new CallStateImpl(nextId(), call, ctx, store);
    const tool = toolNameOf(call);
    let deny = malformedCall(call, tool);
    if (deny === undefined) {
      const judged = collectAndJudge(call, state);
      deny = judged instanceof Promise ? await judged : judged;
    }
    const verdict: Verdict = deny ? 'deny' : state.prompts.length > 0 ? 'prompt' : 'allow';
    let action = verdict;
    let approval: ApprovalOutcome | undefined;
    if (verdict === 'prompt' && checkOpts.resolvePrompts !== false) {
      ({ deny, approval } = await settlePrompt(hooks, call, state, failClosed));
      action = deny ? 'deny' : 'allow';
    }
    let sandboxed: SandboxedRun | undefined;
    if (
      action !== 'deny' &&
      sandboxing(sandbox, state) &&
      (state.deferred.length > 0 || sandbox.mode === 'always')
    ) {
      // Prompt-tier paths are visible inside the sandbox only when approved before the run: settled above,
      // or (resolvePrompts: false) by the host asking about the rewritten call.
      const approved = verdict === 'prompt' ? state.prompts.flatMap((p) => (p.access ? [p.access] : [])) : [];
      const r = rewriteForSandbox(sandbox, call, ctx, state, approved);
      if ('deny' in r) {
        deny = r.deny;
        action = 'deny';
      } else sandboxed = r.sandboxed;
    }
    const decision = buildDecision({
      state,
      tool,
      time,
      verdict,
      action,
      deny,
      approval,
      disclosure,
      sandboxed,
    });
    const observed = observeDecision(hooks, decision, call, ctx, deny);
    if (observed !== undefined) await observed;
    return decision;
  }

  function wrap<A extends Record<string, unknown>, R>(
    tool: string,
    fn: (args: A, ctx: CallContext) => R | Promise<R>,
    wrapOpts: WrapOptions = {},
  ): (args: A, ctx: CallContext) => Promise<R | RejectionEnvelope> {
    if (typeof tool !== 'string' || tool === '')
      throw invalidOption('wrap(tool)', tool, 'a non-empty tool name');
    if (typeof fn !== 'function') throw invalidOption('wrap(fn)', fn, 'a function');
    const onDeny = wrapOpts.onDeny ?? 'return';
    if (onDeny !== 'return' && onDeny !== 'throw')
      throw invalidOption('wrap.onDeny', onDeny, '"return" or "throw"');
    return async (args: A, ctx: CallContext) => {
      const call = { tool, args };
      const decision = await check(call, ctx);
      if (decision.action !== 'allow') {
        const envelope = decision.envelope!;
        if (onDeny === 'throw') throw new ToolCallRejectedError(decision, envelope);
        return envelope;
      }
      try {
        // A sandboxed call runs its rewritten arguments: the command wrapped in the OS sandbox. Otherwise the
        // tool runs with the arguments that were checked — Folder Guard: "Validated paths passed to original
        // tool executor" (`args[paramName] = normalizedPath`), so it cannot read a path differently.
        const run = (decision.sandboxed?.args ?? decision.args ?? args) as A;
        const result = await fn(run, ctx);
        if (hooks.afterToolCall.taps.length > 0)
          await hooks.afterToolCall.promise({ call, ctx, decision, result });
        return result;
      } catch (error) {
        if (hooks.afterToolCall.taps.length > 0)
          await hooks.afterToolCall.promise({ call, ctx, decision, error });
        throw error;
      }
    };
  }

  function describeTools(tools: readonly ToolDescriptor[], ctx: DescribeContext = {}): ToolDescriptor[] {
    if (!Array.isArray(tools))
      throw invalidOption('describeTools(tools)', tools, 'an array of tool descriptors');
    freeze();
    const copy = tools.map((t) => ({ ...t }));
    if (hooks.describeTools.taps.length === 0) return copy;
    try {
      return hooks.describeTools.call(copy, ctx);
    } catch (error) {
      // Listing tools is not a decision: calls are still checked one by one. Report and show them unchanged.
      report('plugin-error', error);
      return tools.map((t) => ({ ...t }));
    }
  }

  const guard: Guard = {
    get plugins() {
      return [...names];
    },
    events,
    get frozen() {
      return frozen;
    },
    use,
    check,
    session(ctx: CallContext): SessionGuard {
      validateContext(ctx);
      const bound = Object.freeze({ ...ctx });
      return {
        ctx: bound,
        check: (call, checkOpts) => check(call, bound, checkOpts),
        wrap: (tool, fn, wrapOpts) => {
          const wrapped = wrap(tool, fn, wrapOpts);
          return (args) => wrapped(args, bound);
        },
        describeTools: (tools) => describeTools(tools, bound),
        end: () => {
          sessions.delete(bound.sessionId);
        },
      };
    },
    endSession(sessionId: string) {
      sessions.delete(sessionId);
    },
    wrap,
    describeTools,
  };
  for (const plugin of options.plugins ?? []) use(plugin);
  return guard;
}
