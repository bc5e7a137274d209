/** The CLI contract (ARCHITECTURE.md): scripts depend on these numbers. */
export const Exit = {
  ALLOW: 0,
  OK: 0,
  DENY: 1,
  /** `lint` found errors; `audit verify` found a broken chain. */
  FAILED: 1,
  USAGE: 2,
  PROMPT: 3,
} as const;

/** A usage or configuration error: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
