/**
 * Tests that need an engine (the ffmpeg binary, LibreOffice, Redis, ...) run in CI always:
 * CI sets FILECONV_REQUIRE_ENGINES=1 and then a missing engine fails the suite. On a laptop
 * without it they are skipped, with a message naming what to install.
 */
import { describe } from 'vitest';

export const ENGINES_REQUIRED = process.env.FILECONV_REQUIRE_ENGINES === '1';

/**
 * `describe` when `available` is true; otherwise a failure under FILECONV_REQUIRE_ENGINES=1, or a
 * skipped block whose name says how to install the engine.
 */
export function describeWithEngine(
  engine: string,
  available: boolean,
  install: string,
  name: string,
  body: () => void,
): void {
  if (available) {
    describe(name, body);
    return;
  }
  if (ENGINES_REQUIRED) {
    throw new Error(`${engine} is required (FILECONV_REQUIRE_ENGINES=1) but not available: ${install}`);
  }
  describe.skip(`${name} (skipped: ${engine} not available; ${install})`, body);
}
