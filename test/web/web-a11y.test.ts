/**
 * Issue 19, "Done when": the web page is accessible and fits a phone in every state. axe-core
 * finds no serious or critical violation, and at 390 px wide nothing scrolls sideways, with the
 * page empty, with files chosen, with an invalid option, while converting, when done and after an error. A screenshot
 * of each state at 1280 and 390 px (and 390 px in dark mode, audited too) is kept in
 * test-results/web-a11y/ for review.
 *
 * "Converting" is held still by a converter that waits on a gate the test opens (sharp behind
 * it), so the state is checked while it lasts rather than raced.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import type { Converter } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { FIXTURES, HTTP_ADAPTER, startServer, type TestServer } from '../http/harness.js';
import {
  accessibleDescription,
  CHROMIUM_INSTALL,
  chromiumAvailable,
  convertAllButton,
  copyAs,
  fileItem,
  hasHorizontalScroll,
  launchChromium,
  type OpenedPage,
  openPage,
  optionField,
  seriousAxeViolations,
  setOptions,
  settledState,
  TEST_RESULTS,
  targetSelect,
  unexpectedProblems,
  visibleText,
} from './web-page.js';

const SCREENSHOTS = join(TEST_RESULTS, 'web-a11y');
const WIDTHS = [1280, 390] as const;

/** Sharp, but every conversion waits until `open()` is called. */
function gatedSharp(): { converter: Converter; open: () => void } {
  const sharp = createSharpConverter();
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    converter: {
      ...sharp,
      name: 'gated-sharp',
      async convert(ctx) {
        await gate;
        return sharp.convert(ctx);
      },
    },
    open: () => open(),
  };
}

// The page's flows through one HTTP adapter (the `all` project's Express): the page and its API
// calls are the same through every adapter, which web-converter.test.ts covers; these heavy runs
// (LibreOffice, ffmpeg, axe) once keep CI's time down.
describe.runIf(HTTP_ADAPTER === 'express')('through one adapter', () => {
  describeWithEngine(
    'chromium',
    chromiumAvailable(),
    CHROMIUM_INSTALL,
    'web page: accessibility and layout',
    () => {
      let browser: Browser;
      let server: TestServer;
      let gate: ReturnType<typeof gatedSharp>;
      let opened: OpenedPage | undefined;

      beforeAll(async () => {
        gate = gatedSharp();
        [browser, server] = await Promise.all([
          launchChromium(),
          mkdir(SCREENSHOTS, { recursive: true }).then(() =>
            startServer({
              perFile: true,
              router: { webConverter: true },
              engine: { converters: [gate.converter] },
            }),
          ),
        ]);
      });
      afterAll(async () => {
        await opened?.context.close();
        await browser?.close();
        await server?.stop();
        expect(server?.serverErrors ?? [], 'errors the router reported as 5xx').toEqual([]);
      });

      /**
       * The page as it is now, at each width: axe's serious and critical violations, and whether it
       * scrolls sideways at 390 px. A screenshot of each. Back at 1280 px afterwards.
       */
      async function audit(page: Page, state: string) {
        const found: Record<string, unknown> = {};
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 800 });
          await page.screenshot({ path: join(SCREENSHOTS, `${state}-${width}.png`), fullPage: true });
          found[`axe at ${width}`] = await seriousAxeViolations(page);
          if (width === 390) found['sideways scroll at 390'] = await hasHorizontalScroll(page);
        }
        // Dark mode (prefers-color-scheme) has colours of its own: their contrast is checked too.
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.screenshot({ path: join(SCREENSHOTS, `${state}-390-dark.png`), fullPage: true });
        found['axe in dark mode at 390'] = await seriousAxeViolations(page);
        await page.emulateMedia({ colorScheme: 'light' });
        await page.setViewportSize({ width: 1280, height: 800 });
        expect(found, state).toEqual({
          'axe at 1280': [],
          'axe at 390': [],
          'sideways scroll at 390': false,
          'axe in dark mode at 390': [],
        });
      }

      it('has no serious or critical axe violation and no sideways scroll at 390 px, in every state', async () => {
        // The page's CSP allows only its own scripts: axe is injected around it.
        opened = await openPage(browser, server.url, { bypassCSP: true });
        const { page } = opened;
        await audit(page, 'empty');

        // A long file name must wrap, not widen the page.
        const dir = await tempDir();
        const long = 'holiday-photo-from-the-seaside-with-a-rather-long-name-2026-08-14.png';
        await page
          .getByLabel('Choose files', { exact: true })
          .setInputFiles(await copyAs(join(FIXTURES, 'fixture.png'), dir, long));
        await targetSelect(page, long).selectOption('webp');
        await audit(page, 'chosen');

        // An option out of its schema's range is marked invalid, says why, and holds "Convert all".
        await setOptions(page, long, { Quality: 500 });
        const quality = optionField(page, long, 'Quality');
        expect([await quality.getAttribute('min'), await quality.getAttribute('max')]).toEqual(['1', '100']);
        expect(await quality.getAttribute('aria-invalid')).toBe('true');
        expect(await accessibleDescription(quality)).toMatch(/\b100\b/);
        expect(await convertAllButton(page).isDisabled()).toBe(true);
        await audit(page, 'invalid');
        await quality.fill('');
        expect(await quality.getAttribute('aria-invalid')).not.toBe('true');
        expect(await convertAllButton(page).isEnabled()).toBe(true);

        await convertAllButton(page).click();
        await expect.poll(() => visibleText(fileItem(page, long)), { timeout: 20_000 }).toMatch(/Converting/);
        await audit(page, 'converting');

        gate.open();
        expect(await settledState(page, long, 30_000)).toBe('done');
        await audit(page, 'done');

        // A PNG that is really text fails with its reason.
        const broken = join(dir, 'broken.png');
        await writeFile(broken, 'This is text, not a picture.\n');
        await page.getByLabel('Choose files', { exact: true }).setInputFiles(broken);
        await targetSelect(page, 'broken.png').selectOption('webp');
        await convertAllButton(page).click();
        expect(await settledState(page, 'broken.png', 30_000)).toBe('failed');
        await audit(page, 'error');
        expect(unexpectedProblems(opened.problems, 400, 415, 422)).toEqual([]);
      }, 120_000);
    },
  );
});
