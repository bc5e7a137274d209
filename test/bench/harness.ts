import { Bench } from 'tinybench';

export interface BenchCase {
  name: string;
  fn: () => unknown | Promise<unknown>;
}

/**
 * Runs cases with tinybench and prints one table: median and p99 in ns/op (medians are what the goals in the
 * issues are stated in). Returns the medians so a suite can print derived numbers (overhead, ratios).
 */
export async function runSuite(title: string, cases: BenchCase[], time = 400): Promise<Map<string, number>> {
  const bench = new Bench({ time, warmupTime: 100 });
  for (const c of cases) bench.add(c.name, c.fn);
  await bench.run();
  const medians = new Map<string, number>();
  const rows = bench.tasks.map((task) => {
    const result = task.result as unknown as
      | { latency?: { p50?: number; p99?: number }; state?: string }
      | undefined;
    const p50 = (result?.latency?.p50 ?? Number.NaN) * 1e6;
    const p99 = (result?.latency?.p99 ?? Number.NaN) * 1e6;
    medians.set(task.name, p50);
    return { case: task.name, 'median ns/op': Math.round(p50), 'p99 ns/op': Math.round(p99) };
  });
  console.log(`\n## ${title}`);
  console.table(rows);
  return medians;
}

export interface InterleavedOptions {
  /** Rounds; each round runs every case `iterations` times, one case after the other (default 15). */
  rounds?: number;
  iterations?: number;
  /** Untimed iterations of every case first (default `iterations`). */
  warmup?: number;
}

/**
 * Runs cases side by side: in rounds, each case's block of iterations right after the other's, so a
 * neighbour's load or a change of CPU speed hits every case alike. A round's time per call includes the
 * garbage collections its allocations cause (a per-iteration median leaves most of them out). Prints the
 * median over rounds and the spread of the middle half; returns the medians in ns per call.
 */
export async function runInterleaved(
  title: string,
  cases: BenchCase[],
  options: InterleavedOptions = {},
): Promise<Map<string, number>> {
  const { rounds = 15, iterations = 2000 } = options;
  const warmup = options.warmup ?? iterations;
  for (const c of cases) for (let i = 0; i < warmup; i++) await c.fn();
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) await c.fn();
      times.get(c.name)!.push(Number(process.hrtime.bigint() - start) / iterations);
    }
  }
  const medians = new Map<string, number>();
  const at = (sorted: number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const rows = cases.map((c) => {
    const sorted = times.get(c.name)!.sort((a, b) => a - b);
    const median = at(sorted, 0.5);
    medians.set(c.name, median);
    return {
      case: c.name,
      'median ns/op': Math.round(median),
      'p25–p75 ns/op': `${Math.round(at(sorted, 0.25))}–${Math.round(at(sorted, 0.75))}`,
    };
  });
  console.log(`\n## ${title} (${rounds} interleaved rounds × ${iterations} calls)`);
  console.table(rows);
  return medians;
}
