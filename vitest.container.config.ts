import { defineConfig } from 'vitest/config';

/**
 * `npm run test:image`: the tests of the container image (test/container/), which needs the image
 * built first (`npm run image`) and podman. Kept out of `npm test`, which needs neither.
 */
export default defineConfig({
  test: {
    include: ['test/container/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    // One file at a time: each runs LibreOffice and Chromium in its containers on a 2-core machine.
    fileParallelism: false,
    reporters: ['default'],
  },
});
