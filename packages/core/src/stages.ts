/**
 * Named stages for taps whose order matters. Order is declared here, never left to the order in which a
 * user lists plugins: `hooks.beforeToolCall.tap({ stage: Stage.POLICY }, fn)`. Lower runs first.
 */
export const Stage = {
  /** Before everything: core's own checks, sanity checks of a call. */
  FIRST: -10_000,
  /** Early vetoes that need no paths (e.g. a dialect forbidding shell metacharacters outright). */
  GUARD: -1_000,
  /** On `onPrompt`: answer from existing grants before any human is asked. */
  GRANTS: -500,
  /** On `collectAccesses`: turn arguments and commands into accesses. */
  EXTRACT: 0,
  /** On `beforeToolCall`: judge accesses against a policy. */
  POLICY: 0,
  /** On `onPrompt`: ask a human or a strategy. */
  APPROVAL: 0,
  /** On `collectAccesses`: refine accesses extracted by others. */
  ENRICH: 500,
  /** On observers: durable records first, then notifications. */
  AUDIT: 1_000,
  NOTIFY: 2_000,
  /** After everything: core's fallbacks (unguarded access). */
  LAST: 10_000,
} as const;

export type StageName = keyof typeof Stage;
