import { defineConfig } from 'vitest/config';

// Tests import workspace packages through the `source` export condition, so they run against src/ without a
// build; the CLI and examples tests run the built dist/ (the root `test` script builds first).
const conditions = ['source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'plugins/*/test/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', './scripts/summaryReporter.ts'],
  },
});
