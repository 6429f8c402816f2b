import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Conversions are CPU-heavy and the machine has 2 cores: more forks only add contention.
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
