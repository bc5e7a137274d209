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
