import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages through the `source` export condition, so they run against src/ without a
// build; the CLI and examples tests run the built dist/ (the root `test` script builds first).
const conditions = ['source', 'import', 'module', 'node', 'default'];

const include = [
  'packages/*/test/**/*.test.ts',
  'plugins/*/test/**/*.test.ts',
  'test/**/*.test.ts',
  'examples/*/test/**/*.test.ts',
];
const exclude = ['**/node_modules/**', '**/dist/**'];

// Files whose assertions depend on time: the shell analyser's 50 ms budget, the hook server's stdin
// timeouts and hand-over, the oracle under strace, audit-log writers waiting for a lock, the sandbox's wall
// time limits. They run one file at a time with the machine to themselves (vitest runs such a group last,
// after the other group is done); everything else (most of it waits on child processes: the CLI, servers,
// bubblewrap, a browser) runs before them on every core. Vitest would otherwise use cores − 1 workers: one,
// on a 2-core CI machine (568 s for the suite; 376 s like this, same machine, same tests).
const timed = [
  'plugins/shell/test/**/*.test.ts',
  'test/oracle/**/*.test.ts',
  'packages/cli/test/hook*.test.ts',
  'packages/cli/test/runLimits.test.ts',
  'packages/sandbox/test/limits*.test.ts',
  'plugins/audit-log/test/concurrentWriters.test.ts',
];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    exclude,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', './scripts/summaryReporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'timed', include: timed, maxWorkers: 1, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'rest',
          include,
          exclude: [...exclude, ...timed],
          maxWorkers: Math.max(2, availableParallelism()),
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
