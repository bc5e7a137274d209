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

export interface InterleavedResult {
  /** Median over rounds of a round's time per call, in ns. */
  median: number;
  /** Median over rounds of (this case's block ÷ the first case's block in the same round). */
  ratio: number;
}

/**
 * Runs cases side by side: in rounds, each case's block of iterations right after the other's, the order
 * rotated from round to round. Calls within
 * a block await each other back to back; the block ends with one event-loop turn. A block's time per call
 * includes the garbage collections its allocations cause (a per-iteration median leaves most of them out).
 * Ratios are taken per round, between blocks a few milliseconds apart, so a neighbour's load (this machine is
 * shared) hits both sides of a ratio alike; the medians of those ratios are what to compare.
 */
export async function runInterleaved(
  title: string,
  cases: BenchCase[],
  options: InterleavedOptions = {},
): Promise<Map<string, InterleavedResult>> {
  const { rounds = 15, iterations = 2000 } = options;
  const warmup = options.warmup ?? iterations;
  for (const c of cases) for (let i = 0; i < warmup; i++) await c.fn();
  const times = cases.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    // Each round starts one case later: the block right after a switch of code path pays for cold caches,
    // and a fixed order would always charge that to the same case.
    for (let j = 0; j < cases.length; j++) {
      const k = (r + j) % cases.length;
      const c = cases[k]!;
      const start = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) await c.fn();
      // Inside the timing: work a case defers to the next turn (an async flush) is counted where it belongs.
      await new Promise((resolve) => setImmediate(resolve));
      times[k]!.push(Number(process.hrtime.bigint() - start) / iterations);
    }
  }
  const quantile = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  };
  const results = new Map<string, InterleavedResult>();
  const rows = cases.map((c, k) => {
    const own = times[k]!;
    const ratios = own.map((t, r) => t / times[0]![r]!);
    const result = { median: quantile(own, 0.5), ratio: quantile(ratios, 0.5) };
    results.set(c.name, result);
    return {
      case: c.name,
      'median ns/op': Math.round(result.median),
      [`÷ ${cases[0]!.name} (p25–p75)`]:
        k === 0
          ? ''
          : `${result.ratio.toFixed(2)}× (${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)})`,
    };
  });
  console.log(`\n## ${title} (${rounds} interleaved rounds × ${iterations} calls)`);
  console.table(rows);
  return results;
}
