import {
  type CallContext,
  describeValue,
  type Guard,
  type RejectionEnvelope,
  ToolCallRejectedError,
  ToolgateError,
} from '@toolgate/core';
import type { Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { absoluteArgs } from './absoluteArgs.js';

export interface GuardToolsOptions {
  /** On deny, return the rejection envelope as the tool's result (default) or throw `ToolCallRejectedError`. */
  onDeny?: 'return' | 'throw';
  /** The name toolgate judges a tool under (default: its key in the tool set). */
  toolName?: (key: string) => string;
}

/** The context of a call: fixed, or derived per call from the SDK's execution options. */
export type ContextSource = CallContext | ((options: ToolExecutionOptions) => CallContext);

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `guardTools: ${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

// Envelopes this wrapper returned, so a tool's own toModelOutput is not handed an object it never produced.
const envelopes = new WeakSet<object>();

function isAsyncGeneratorFunction(fn: unknown): boolean {
  return typeof fn === 'function' && fn.constructor?.name === 'AsyncGeneratorFunction';
}

/**
 * Wraps every tool of an AI SDK tool set so each call is judged by the guard before `execute` runs.
 * A denied call never runs: the model gets the rejection envelope as the tool result (or the call throws,
 * with `onDeny: 'throw'`). A prompt verdict goes to the guard's approvers (the approvals plugin); an
 * unanswered prompt is a deny. Tools without `execute` (run by the client) are returned unchanged.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs, tool } from 'ai';
 * import { guardTools } from '@toolgate/ai-sdk';
 * const tools = guardTools({ read_file: tool({ inputSchema, execute: ({ path }) => readFile(path, 'utf8') }) }, guard, ctx);
 * const result = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt });
 * ```
 */
export function guardTools<T extends ToolSet>(
  tools: T,
  guard: Guard,
  ctx: ContextSource,
  options: GuardToolsOptions = {},
): T {
  if (tools === null || typeof tools !== 'object' || Array.isArray(tools))
    throw invalid('tools', tools, 'an object of AI SDK tools');
  if (guard === null || typeof guard !== 'object' || typeof guard.check !== 'function')
    throw invalid('guard', guard, 'a guard from createGuard()');
  if (typeof ctx !== 'function' && (ctx === null || typeof ctx !== 'object'))
    throw invalid('ctx', ctx, 'a CallContext or a function returning one');
  const onDeny = options.onDeny ?? 'return';
  if (onDeny !== 'return' && onDeny !== 'throw')
    throw invalid('options.onDeny', onDeny, '"return" or "throw"');
  const nameOf = options.toolName ?? ((key: string) => key);
  if (typeof nameOf !== 'function') throw invalid('options.toolName', nameOf, 'a function');
  const contextOf = typeof ctx === 'function' ? ctx : () => ctx;

  const judge = async (
    name: string,
    input: unknown,
    execOptions: ToolExecutionOptions,
  ): Promise<{ envelope: RejectionEnvelope } | { input: unknown }> => {
    // The model's input is judged as it is: a non-object input is a malformed call (core denies it).
    const args = input as Record<string, unknown>;
    const decision = await guard.check({ tool: name, args }, contextOf(execOptions));
    // A sandboxed call runs its rewritten input: the command wrapped in the OS sandbox. Otherwise execute
    // gets the absolute paths the guard judged, not the relative ones it would resolve elsewhere.
    if (decision.action === 'allow')
      return { input: decision.sandboxed ? decision.sandboxed.args : absoluteArgs(input, decision.accesses) };
    const envelope = decision.envelope!;
    if (onDeny === 'throw') throw new ToolCallRejectedError(decision, envelope);
    envelopes.add(envelope);
    return { envelope };
  };

  const wrapped: Record<string, Tool> = {};
  for (const [key, original] of Object.entries(tools as Record<string, Tool>)) {
    const execute = original.execute;
    if (typeof execute !== 'function') {
      wrapped[key] = original;
      continue;
    }
    const name = nameOf(key);
    // Streaming tools (async generators) stay streaming; the check runs before their first step.
    const guardedExecute = isAsyncGeneratorFunction(execute)
      ? async function* (input: unknown, execOptions: ToolExecutionOptions) {
          const verdict = await judge(name, input, execOptions);
          if ('envelope' in verdict) {
            yield verdict.envelope;
            return;
          }
          yield* execute(verdict.input, execOptions) as AsyncIterable<unknown>;
        }
      : async (input: unknown, execOptions: ToolExecutionOptions) => {
          const verdict = await judge(name, input, execOptions);
          return 'envelope' in verdict ? verdict.envelope : execute(verdict.input, execOptions);
        };
    const toModelOutput = original.toModelOutput;
    wrapped[key] = {
      ...original,
      execute: guardedExecute,
      ...(toModelOutput
        ? {
            toModelOutput: (arg: Parameters<NonNullable<Tool['toModelOutput']>>[0]) =>
              arg.output !== null && typeof arg.output === 'object' && envelopes.has(arg.output as object)
                ? { type: 'json' as const, value: arg.output as never }
                : toModelOutput(arg),
          }
        : {}),
    } as Tool;
  }
  return wrapped as T;
}
