import type { Decision, RejectionEnvelope, ToolCall } from '@toolgate/core';

/** What the hook process prints and exits with. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** How a host answers an allow. */
export interface AnswerOptions {
  /**
   * Opt-in: answer an allow that judged paths with the host's "allow", which skips the host's own permission
   * prompt. Off by default: a policy allow means "toolgate does not object", not "the user approved".
   */
  approveAllowed?: boolean;
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
  answer(decision: Decision, options?: AnswerOptions): HookAnswer;
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

/** The reason shown in the host's approval dialog: every prompt finding, with the path it is about. */
export function promptReason(decision: Decision): string {
  const reasons = decision.reasons.map((r) =>
    r.access ? `${r.access.op} ${r.access.realPath ?? r.access.path}: ${r.reason}` : r.reason,
  );
  return `toolgate: approval needed — ${reasons.join('; ')}`;
}
