import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { packageEntries } from './scripts/package-entries.js';

/**
 * Code written as a user writes it (the docs example, examples/) imports the package by name:
 * `fileconv`, `fileconv/testing`, `fileconv/http/express`... In this repository that means the
 * sources, not a possibly stale dist/: every subpath export maps to the file it is built from
 * (scripts/package-entries.ts, as tsup.config.ts derives its entries). Anchored, so 'fileconv' does
 * not also catch 'fileconv/testing', nor 'fileconv/http' catch 'fileconv/http/node'.
 */
const sourceAliases = packageEntries(import.meta.dirname).map(({ subpath, source }) => ({
  find: new RegExp(`^fileconv${subpath.slice(1)}$`),
  replacement: fileURLToPath(new URL(`./${source}`, import.meta.url)),
}));

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    // Every test once (the HTTP suites through the Express adapter), then the HTTP and web
    // suites again through each other adapter of the same service: no adapter may answer
    // differently (test/http/harness.ts picks the adapter from FILECONV_HTTP_ADAPTER).
    projects: [
      {
        extends: true,
        // test/container: the image's tests, which need the image built (npm run test:image).
        test: {
          name: 'all',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/container/**'],
        },
      },
      ...(['node', 'fetch', 'fastify'] as const).map((adapter) => ({
        extends: true as const,
        test: {
          name: `http-${adapter}`,
          include: ['test/http/**/*.test.ts', 'test/web/**/*.test.ts'],
          env: { FILECONV_HTTP_ADAPTER: adapter },
        },
      })),
    ],
    // The web page's script is built from its TypeScript sources (not committed): fresh for the tests.
    globalSetup: ['./test/helpers/build-web-app.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Conversions are CPU-heavy and the machine has 2 cores: more forks only add contention.
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
