// The time budget of one analysis. Module state rather than a parameter threaded through every layer:
// extraction is synchronous, so exactly one budget is running at any moment (nested starts save and restore).

/** Thrown inside the walk when the analysis ran past its budget; `extractAccesses` turns it into SHELL_BUDGET. */
export class BudgetExceeded extends Error {}

let deadline = Number.POSITIVE_INFINITY;
let limitMs = 0;
let ticks = 0;

/**
 * Starts a budget of `ms` milliseconds for the analysis about to run and returns the one it replaces (pass
 * it to {@link endBudget}).
 */
export function startBudget(ms: number): { deadline: number; limitMs: number } {
  const saved = { deadline, limitMs };
  deadline = performance.now() + ms;
  limitMs = ms;
  ticks = 0;
  return saved;
}

/** Restores the budget `startBudget` replaced. */
export function endBudget(saved: { deadline: number; limitMs: number }): void {
  deadline = saved.deadline;
  limitMs = saved.limitMs;
}

/**
 * Reads the clock now: throws `BudgetExceeded` past the deadline, or when a step about to start that cannot
 * be interrupted (one bash-parser call) is expected to take `expectedMs` and would end past it.
 */
export function checkBudget(expectedMs = 0): void {
  if (performance.now() + expectedMs > deadline) {
    throw new BudgetExceeded(`the analysis took longer than its budget of ${limitMs} ms`);
  }
}

/** Called on every step of the walk; reads the clock only every 64 steps, so a step stays cheap. */
export function tick(): void {
  if ((++ticks & 63) === 0) checkBudget();
}

/**
 * Moves the deadline back by `ms`: for one-time costs that are not the analysis of this command (the first
 * bash-parser call of the process compiles its grammar, ~15–200 ms).
 */
export function extendBudget(ms: number): void {
  deadline += ms;
}
