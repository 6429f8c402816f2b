import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The docs example imports the package by name, as a user would; in this repository that
  // means the sources, not a possibly stale dist/. Anchored, so 'fileconv' does not also catch
  // 'fileconv/testing'.
  resolve: {
    alias: [
      {
        find: /^fileconv\/testing$/,
        replacement: fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      },
      { find: /^fileconv$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    // Every test once (the HTTP suites through the Express adapter), then the HTTP and web
    // suites again through each other adapter of the same service: no adapter may answer
    // differently (test/http/harness.ts picks the adapter from FILECONV_HTTP_ADAPTER).
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts'] } },
      ...(['node', 'fetch', 'fastify'] as const).map((adapter) => ({
        extends: true as const,
        test: {
          name: `http-${adapter}`,
          include: ['test/http/**/*.test.ts', 'test/web/**/*.test.ts'],
          env: { FILECONV_HTTP_ADAPTER: adapter },
        },
      })),
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Conversions are CPU-heavy and the machine has 2 cores: more forks only add contention.
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
