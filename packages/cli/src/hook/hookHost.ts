import type { Decision, RejectionEnvelope, ToolCall } from '@toolgate/core';

/** What the hook process prints and exits with. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** A host's tool call in toolgate's terms; `cwd` when the tool runs somewhere else than the session's cwd. */
export type MappedCall = { call: ToolCall; cwd?: string } | { uncertain: string };

/** One coding assistant's hook protocol: its event name, its tools, and how it wants answers. */
export interface HookHost {
  readonly name: string;
  readonly eventName: string;
  /**
   * The environment variable the assistant sets to the project root for its hooks. It is the default
   * workspace: the event's `cwd` moves with the agent's `cd`, and a workspace that moved to `/` would widen
   * every `<workspace>` rule.
   */
  readonly projectDirEnv: string;
  /** `false`: a prompt verdict is answered `ask` (the assistant's own dialog approves); `true`: the guard's approvers decide. */
  readonly resolvePrompts: boolean;
  /** Built-in tools that take no paths: exempt from the path-like-argument check. */
  readonly noPathTools: ReadonlySet<string>;
  map(toolName: string, input: Record<string, unknown>, cwd: string): MappedCall;
  answer(decision: Decision): HookAnswer;
  deny(envelope: RejectionEnvelope): HookAnswer;
}

/**
 * Both hosts: exit code 2 blocks the call and feeds stderr to the model. Any other non-zero exit is a
 * "non-blocking error" after which the tool runs, so every failure path must end here.
 */
export const BLOCK = 2;

export function blockingError(reason: string): HookAnswer {
  return { stdout: '', stderr: `toolgate: call blocked: ${reason}\n`, exitCode: BLOCK };
}

/** The deny reason the model sees: the envelope itself, so it can act on code, path, roots and hint. */
export function denyReason(envelope: RejectionEnvelope): string {
  return `toolgate: ${JSON.stringify(envelope)}`;
}
