import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook, SyncWaterfallHook } from 'tapable';
import type { CallState, CallStateImpl } from './callState.js';
import { PluginFailure, toPluginFailure, withTimeout } from './pluginFailure.js';
import type {
  Access,
  CallContext,
  Decision,
  DescribeContext,
  Finding,
  PromptAnswer,
  PromptRequest,
  ToolCall,
  ToolDescriptor,
  Violation,
} from './types.js';
import { accessProblem, answerProblem, findingProblem, isThenable, toolsProblem } from './validateOutputs.js';

/** What observers of `afterToolCall` see once a wrapped tool has run. */
export interface ToolResult {
  call: ToolCall;
  ctx: CallContext;
  decision: Decision;
  result?: unknown;
  error?: unknown;
}

/** The hooks of one guard (ARCHITECTURE.md, "The flow of one tool call"). */
export interface GuardHooks {
  collectAccesses: AsyncSeriesWaterfallHook<[Access[], ToolCall, CallState]>;
  beforeToolCall: AsyncSeriesBailHook<[ToolCall, CallState], Finding | undefined>;
  onPrompt: AsyncSeriesBailHook<[PromptRequest, CallState], PromptAnswer | undefined>;
  onViolation: AsyncParallelHook<[Violation]>;
  onDecision: AsyncParallelHook<[Decision, ToolCall, CallContext]>;
  afterToolCall: AsyncParallelHook<[ToolResult]>;
  describeTools: SyncWaterfallHook<[ToolDescriptor[], DescribeContext]>;
}

export type HookName = keyof GuardHooks;

export interface HookTimeouts {
  collectAccesses: number;
  beforeToolCall: number;
  onPrompt: number;
  /** Bound on each observer tap (onViolation, onDecision, afterToolCall). */
  observers: number;
}

export interface TapSpec {
  stage?: number;
  before?: string;
}

interface HookArgs {
  collectAccesses: [Access[], ToolCall, CallState];
  beforeToolCall: [ToolCall, CallState];
  onPrompt: [PromptRequest, CallState];
  onViolation: [Violation];
  onDecision: [Decision, ToolCall, CallContext];
  afterToolCall: [ToolResult];
  describeTools: [ToolDescriptor[], DescribeContext];
}
type Args<K extends HookName> = HookArgs[K];
type Ret<K extends HookName> = K extends 'collectAccesses'
  ? Access[]
  : K extends 'beforeToolCall'
    ? Finding | undefined | void
    : K extends 'onPrompt'
      ? PromptAnswer | undefined | void
      : K extends 'describeTools'
        ? ToolDescriptor[]
        : void;

/** A hook as plugins see it: tap only — no `call`, no `promise`, no interceptors. */
export interface HookFacade<K extends HookName> {
  /** Tap with a synchronous function. The tap is named after the plugin. */
  tap(spec: TapSpec | string, fn: (...args: Args<K>) => Ret<K>): void;
  /** Tap with a function returning a promise; it is bounded by the hook's timeout. */
  tapPromise(spec: TapSpec | string, fn: (...args: Args<K>) => Promise<Ret<K>>): void;
}

export type PluginHooks = { readonly [K in HookName]: HookFacade<K> };

const OBSERVERS = new Set<HookName>(['onViolation', 'onDecision', 'afterToolCall']);

export function createHooks(): GuardHooks {
  return Object.freeze({
    collectAccesses: new AsyncSeriesWaterfallHook<[Access[], ToolCall, CallState]>(
      ['accesses', 'call', 'state'],
      'collectAccesses',
    ),
    beforeToolCall: new AsyncSeriesBailHook<[ToolCall, CallState], Finding | undefined>(
      ['call', 'state'],
      'beforeToolCall',
    ),
    onPrompt: new AsyncSeriesBailHook<[PromptRequest, CallState], PromptAnswer | undefined>(
      ['request', 'state'],
      'onPrompt',
    ),
    onViolation: new AsyncParallelHook<[Violation]>(['violation'], 'onViolation'),
    onDecision: new AsyncParallelHook<[Decision, ToolCall, CallContext]>(
      ['decision', 'call', 'ctx'],
      'onDecision',
    ),
    afterToolCall: new AsyncParallelHook<[ToolResult]>(['result'], 'afterToolCall'),
    describeTools: new SyncWaterfallHook<[ToolDescriptor[], DescribeContext]>(
      ['tools', 'ctx'],
      'describeTools',
    ),
  });
}

type Post = (result: unknown, args: unknown[]) => unknown;

/** Checks and normalises what a tap returned, per hook; a contract breach throws a PluginFailure. */
function postFor(hook: HookName, plugin: string): Post {
  const invalid = (detail: string) => new PluginFailure(plugin, hook, 'invalid', detail);
  switch (hook) {
    case 'collectAccesses':
      return (result, args) => {
        const before = args[0] as Access[];
        if (!Array.isArray(result)) throw invalid('collectAccesses taps must return the array of accesses');
        // Append-only: dropping or replacing an earlier extractor's access would loosen the verdict.
        for (let i = 0; i < before.length; i++) {
          if (result[i] !== before[i])
            throw invalid('collectAccesses taps may only append accesses, never remove or replace one');
        }
        for (let i = before.length; i < result.length; i++) {
          const problem = accessProblem(result[i]);
          if (problem) throw invalid(problem);
          Object.freeze(result[i]);
        }
        return result;
      };
    case 'beforeToolCall':
      return (result, args) => {
        if (result === undefined || result === null) return undefined;
        // "allow" is never a verdict a plugin can return to end the chain (invariant 1): it is ignored.
        if (typeof result === 'object' && (result as { action?: unknown }).action === 'allow')
          return undefined;
        const problem = findingProblem(result);
        if (problem) throw invalid(problem);
        const finding = { ...(result as Finding), plugin: plugin };
        if (finding.action === 'prompt') {
          (args[1] as CallStateImpl).prompt(finding);
          return undefined;
        }
        return finding;
      };
    case 'onPrompt':
      return (result) => {
        if (result === undefined || result === null) return undefined;
        const problem = answerProblem(result);
        if (problem) throw invalid(problem);
        const answer = result as PromptAnswer;
        return { ...answer, by: answer.by ?? plugin };
      };
    case 'describeTools':
      return (result) => {
        const problem = toolsProblem(result);
        if (problem) throw invalid(problem);
        return result;
      };
    default:
      return () => undefined;
  }
}

function stateOf(hook: HookName, args: unknown[]): CallStateImpl | undefined {
  if (hook === 'collectAccesses') return args[2] as CallStateImpl;
  if (hook === 'beforeToolCall' || hook === 'onPrompt') return args[1] as CallStateImpl;
  return undefined;
}

export type ObserverErrorSink = (failure: PluginFailure) => void;

/**
 * Wraps every tap as it is registered (tapable's `register` interceptor): a throw, a rejection, a hang past
 * the hook's timeout or an invalid return value becomes a PluginFailure naming plugin and hook, which core
 * turns into a PLUGIN_ERROR deny. Observer taps are wrapped so they can never fail or stall a decision.
 */
export function interceptHooks(
  hooks: GuardHooks,
  timeouts: HookTimeouts,
  onObserverError: ObserverErrorSink,
): void {
  for (const name of Object.keys(hooks) as HookName[]) {
    const hook = hooks[name] as unknown as { intercept(i: { register(tap: TapLike): TapLike }): void };
    const observer = OBSERVERS.has(name);
    const ms = observer
      ? timeouts.observers
      : name === 'describeTools'
        ? Number.POSITIVE_INFINITY
        : timeouts[name as keyof HookTimeouts];
    hook.intercept({
      register(tap) {
        const plugin = tap.name;
        const original = tap.fn as (...args: unknown[]) => unknown;
        const post = postFor(name, plugin);
        if (observer) {
          tap.fn = observerWrapper(name, plugin, original, tap.type, ms, onObserverError);
          return tap;
        }
        if (tap.type === 'sync') {
          tap.fn = (...args: unknown[]) => {
            const state = stateOf(name, args);
            if (state) state.activePlugin = plugin;
            let result: unknown;
            try {
              result = original(...args);
            } catch (error) {
              throw toPluginFailure(plugin, name, error);
            }
            if (isThenable(result)) {
              throw new PluginFailure(
                plugin,
                name,
                'invalid',
                'a tap registered with tap() returned a promise; use tapPromise()',
              );
            }
            return post(result, args);
          };
        } else if (tap.type === 'promise') {
          tap.fn = (...args: unknown[]) => {
            const state = stateOf(name, args);
            if (state) state.activePlugin = plugin;
            let pending: Promise<unknown>;
            try {
              pending = Promise.resolve(original(...args));
            } catch (error) {
              return Promise.reject(toPluginFailure(plugin, name, error));
            }
            return withTimeout(
              pending,
              ms,
              () => new PluginFailure(plugin, name, 'timeout', `no result within ${ms} ms`),
            ).then(
              (result) => post(result, args),
              (error: unknown) => {
                throw toPluginFailure(plugin, name, error);
              },
            );
          };
        } else {
          throw new PluginFailure(
            plugin,
            name,
            'invalid',
            'callback-style taps (tapAsync) are not supported; use tapPromise()',
          );
        }
        return tap;
      },
    });
  }
}

interface TapLike {
  name: string;
  type: 'sync' | 'async' | 'promise';
  fn: Function;
}

function observerWrapper(
  hook: HookName,
  plugin: string,
  original: (...args: unknown[]) => unknown,
  type: TapLike['type'],
  ms: number,
  report: ObserverErrorSink,
): (...args: unknown[]) => unknown {
  if (type === 'sync') {
    return (...args: unknown[]) => {
      try {
        const result = original(...args);
        if (isThenable(result)) {
          (result as Promise<unknown>).then(undefined, (error: unknown) =>
            report(toPluginFailure(plugin, hook, error)),
          );
        }
      } catch (error) {
        report(toPluginFailure(plugin, hook, error));
      }
      return undefined;
    };
  }
  return (...args: unknown[]) => {
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(original(...args));
    } catch (error) {
      report(toPluginFailure(plugin, hook, error));
      return Promise.resolve();
    }
    return withTimeout(
      pending,
      ms,
      () =>
        new PluginFailure(
          plugin,
          hook,
          'timeout',
          `observer still running after ${ms} ms; the decision did not wait`,
        ),
    ).then(
      () => undefined,
      (error: unknown) => report(toPluginFailure(plugin, hook, error)),
    );
  };
}

/** The facade one plugin receives: taps are named after the plugin and refused once the guard is frozen. */
export function createPluginHooks(hooks: GuardHooks, plugin: string, assertOpen: () => void): PluginHooks {
  const facade = {} as Record<HookName, HookFacade<HookName>>;
  for (const name of Object.keys(hooks) as HookName[]) {
    const hook = hooks[name] as unknown as {
      tap(o: object, fn: Function): void;
      tapPromise?(o: object, fn: Function): void;
    };
    const options = (spec: TapSpec | string) =>
      typeof spec === 'string' ? { name: plugin } : { ...spec, name: plugin };
    facade[name] = Object.freeze({
      tap(spec: TapSpec | string, fn: Function) {
        assertOpen();
        hook.tap(options(spec), fn);
      },
      tapPromise(spec: TapSpec | string, fn: Function) {
        assertOpen();
        if (!hook.tapPromise) throw new TypeError(`${name} is synchronous: use tap()`);
        hook.tapPromise(options(spec), fn);
      },
    });
  }
  return Object.freeze(facade) as unknown as PluginHooks;
}
