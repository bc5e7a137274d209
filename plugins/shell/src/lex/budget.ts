// The time budget of one analysis. Module state rather than a parameter threaded through every layer:
// extraction is synchronous, so exactly one budget is running at any moment (nested starts save and restore).
//
// The budget is CPU time of this process, so the answer for a command does not depend on how busy the
// machine is (a wall-clock budget turns a loaded host's ordinary commands into false denies). A wall-clock
// cap of WALL_FACTOR × the budget still bounds how long the host's event loop can be blocked.
import { monotonicMs } from '@toolgate/core';

/** Thrown inside the walk when the analysis ran past its budget; `extractAccesses` turns it into SHELL_BUDGET. */
export class BudgetExceeded extends Error {}

const WALL_FACTOR = 10;

interface Budget {
  /** CPU microseconds allowed, counted from `cpu0`. */
  cpuLimit: number;
  /**
   * CPU time at the start, read lazily at the first check: a simple command's analysis makes no check at all,
   * and reading the CPU clock (getrusage) cost ~2.5 µs of every decision. Backdated by the wall time elapsed,
   * the estimate can only count more CPU than was used, never less.
   */
  cpu0: number | undefined;
  wall0: number;
  wallDeadline: number;
  limitMs: number;
}

const NONE: Budget = {
  cpuLimit: Number.POSITIVE_INFINITY,
  cpu0: 0,
  wall0: 0,
  wallDeadline: Number.POSITIVE_INFINITY,
  limitMs: 0,
};
let current: Budget = NONE;
let ticks = 0;

function cpuNow(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * Starts a budget of `ms` milliseconds (CPU; at most 10 × `ms` of wall time) for the analysis about to run
 * and returns the one it replaces (pass it to {@link endBudget}).
 */
export function startBudget(ms: number): Budget {
  const saved = current;
  const wall0 = monotonicMs();
  current = {
    cpuLimit: ms * 1000,
    cpu0: undefined,
    wall0,
    wallDeadline: wall0 + ms * WALL_FACTOR,
    limitMs: ms,
  };
  ticks = 0;
  return saved;
}

/** Restores the budget `startBudget` replaced. */
export function endBudget(saved: Budget): void {
  current = saved;
}

/**
 * Reads the clocks now: throws `BudgetExceeded` past the budget, or when a step about to start that cannot
 * be interrupted (one bash-parser call) is expected to take `expectedMs` and would end past it.
 */
export function checkBudget(expectedMs = 0): void {
  if (current === NONE) return;
  const wall = monotonicMs();
  const elapsed = wall - current.wall0;
  // The first check reads the CPU clock and backdates the start by the wall time so far (at most that much
  // CPU was spent): it comes early (every 64 steps, and before each bash-parser call), so the estimate is
  // tight, and a long step after it (the parser's first compile) is counted as CPU, not guessed from wall time.
  if (current.cpu0 === undefined) current.cpu0 = cpuNow() - elapsed * 1000;
  const cpu = cpuNow() - current.cpu0 + expectedMs * 1000;
  if (cpu > current.cpuLimit) {
    throw new BudgetExceeded(`the analysis took longer than its budget of ${current.limitMs} ms`);
  }
  if (wall > current.wallDeadline) {
    throw new BudgetExceeded(
      `the analysis took longer than ${WALL_FACTOR} × its budget of ${current.limitMs} ms of wall time`,
    );
  }
}

/** Called on every step of the walk; reads the clocks only every 64 steps, so a step stays cheap. */
export function tick(): void {
  if ((++ticks & 63) === 0) checkBudget();
}

/**
 * Gives back `ms`: for one-time costs that are not the analysis of this command (the first bash-parser call
 * of the process compiles its grammar, ~15–200 ms).
 */
export function extendBudget(ms: number): void {
  if (current === NONE) return;
  current.cpuLimit += ms * 1000;
  current.wallDeadline += ms;
}
