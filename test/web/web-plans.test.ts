/**
 * Issue 19, "Done when": plans on the web page, in a real browser against a real service. A Free
 * quota that runs out mid-batch: two files convert, the others say the quota is used up and
 * when it resets. The plan region says Free and the conversions left; an API key is kept in
 * localStorage only when "Remember this key on this device" is checked, and is never put in a URL.
 * Each test starts a service of its own (sharp only: cheap); the browser is started once.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createApiKey } from '../../src/core/policy/api-keys.js';
import { definePlans } from '../../src/core/policy/plans.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { FIXTURES, HTTP_ADAPTER, movableClock, startServer } from '../http/harness.js';
import {
  CHROMIUM_INSTALL,
  chromiumAvailable,
  convertAllButton,
  copyAs,
  fileItem,
  planRegion,
  sharedBrowser,
  targetSelect,
  unexpectedProblems,
  visibleText,
} from './web-page.js';

/** Everything the page keeps in localStorage, as one string. */
const localStorageText = (page: Page) =>
  page.evaluate<string>('JSON.stringify(Object.entries(localStorage))');

// The page's flows through one HTTP adapter (the `all` project's Express): the page and its API
// calls are the same through every adapter, which web-converter.test.ts covers; these heavy runs
// (LibreOffice, ffmpeg, axe) once keep CI's time down.
describe.runIf(HTTP_ADAPTER === 'express')('through one adapter', () => {
  describeWithEngine(
    'chromium',
    chromiumAvailable(),
    CHROMIUM_INSTALL,
    'web page: plans and API keys',
    () => {
      const pages = sharedBrowser();

      it('shows a Free quota running out mid-batch, with its reset time, for the files it stopped', async () => {
        // The router's clock stands still: the UTC day cannot roll over mid-test.
        const clock = movableClock(Date.now());
        const server = await startServer({
          clock,
          router: {
            webConverter: true,
            counters: createMemoryCounterStore({ now: clock.now }),
            plans: definePlans({ free: { conversionsPerDay: 2 } }),
          },
        });
        // In UTC, the daily quota's reset (midnight UTC) reads 00:00 (or 12:00 AM, or "midnight").
        const opened = await pages.open(server.url, { timezoneId: 'UTC', locale: 'en-GB' });
        const { page } = opened;
        const dir = await tempDir();
        const names = ['one.png', 'two.png', 'three.png', 'four.png'];
        const paths = await Promise.all(
          names.map((name) => copyAs(join(FIXTURES, 'fixture.png'), dir, name)),
        );
        await page.getByLabel('Choose files', { exact: true }).setInputFiles(paths);
        for (const name of names) await targetSelect(page, name).selectOption('webp');
        await convertAllButton(page).click();

        // Every file leaves the working states: done, failed, or (stopped before it was sent) ready.
        const stateOf = async (name: string) => {
          const text = await visibleText(fileItem(page, name));
          if (/Failed/.test(text)) return 'failed';
          if (/\bDone\b/.test(text)) return 'done';
          return /Waiting|Uploading|Converting/.test(text) ? 'working' : 'stopped';
        };
        await expect
          .poll(async () => (await Promise.all(names.map(stateOf))).filter((state) => state === 'working'), {
            timeout: 30_000,
          })
          .toEqual([]);
        const states = await Promise.all(names.map(stateOf));
        expect(
          states.filter((state) => state === 'done'),
          states.join(' '),
        ).toHaveLength(2);
        const refused = names.filter((_, index) => states[index] !== 'done');
        // The quota message with its reset time: in the file's own reason, or in the page's alert.
        const resetTime = /\b00:00\b|12:00\s?AM|midnight/i;
        const alerts = (await page.getByRole('alert').allInnerTexts()).join(' ');
        for (const name of refused) {
          const said = `${await visibleText(fileItem(page, name))} ${alerts}`;
          expect(said, name).toMatch(/quota|conversions per day/i);
          expect(said, name).toMatch(resetTime);
        }
        // And what a plan would change (the contract's 429 message).
        expect(alerts).toMatch(/\bplan\b/i);
        // The plan region has caught up: none left today.
        await expect.poll(() => visibleText(planRegion(page))).toMatch(/\b0 of 2 conversions left today/);
        expect(unexpectedProblems(opened.problems, 429)).toEqual([]);
      });

      it('shows Free and the conversions left; remembers an API key only when asked; never in a URL', async () => {
        const keys = createMemoryKeyStore();
        const { key } = await createApiKey(keys, { accountId: 'acct-web', plan: 'plus' });
        const server = await startServer({
          router: { webConverter: true, keys, counters: createMemoryCounterStore() },
        });
        const opened = await pages.open(server.url);
        const { page } = opened;
        const urls: string[] = [];
        page.on('request', (request) => urls.push(request.url()));
        const authorized: string[] = [];
        page.on('request', async (request) => {
          const value = await request.headerValue('authorization').catch(() => null);
          if (value) authorized.push(value);
        });

        const plan = planRegion(page);
        await expect.poll(() => visibleText(plan)).toMatch(/\bFree\b/);
        expect(await visibleText(plan)).toMatch(/\b5 of 5 conversions left today/);

        const keyInput = page.getByLabel('API key', { exact: true });
        expect(await keyInput.getAttribute('type')).toBe('password');
        const remember = page.getByRole('checkbox', {
          name: 'Remember this key on this device',
          exact: true,
        });
        const useKey = page.getByRole('button', { name: 'Use key', exact: true });
        const forgetKey = page.getByRole('button', { name: 'Forget key', exact: true });

        // Not remembered: used (the plan region shows the key's plan) but not in localStorage.
        await keyInput.fill(key);
        await remember.setChecked(false);
        await useKey.click();
        await expect.poll(() => visibleText(plan)).toMatch(/\bPlus\b/);
        expect(await visibleText(plan)).toMatch(/\b100 of 100 conversions left today/);
        expect(await localStorageText(page)).not.toContain(key);
        expect(authorized).toContain(`Bearer ${key}`);

        // Remembered: in localStorage, and still there on the next visit.
        await forgetKey.click();
        await expect.poll(() => visibleText(plan)).toMatch(/\bFree\b/);
        await keyInput.fill(key);
        await remember.setChecked(true);
        await useKey.click();
        await expect.poll(() => localStorageText(page)).toContain(key);
        await page.reload({ waitUntil: 'networkidle' });
        await expect.poll(() => visibleText(plan)).toMatch(/\bPlus\b/);

        // Forgotten: gone from localStorage, and the page is back on Free.
        await forgetKey.click();
        await expect.poll(() => localStorageText(page)).not.toContain(key);
        await expect.poll(() => visibleText(plan)).toMatch(/\bFree\b/);

        expect(urls.length).toBeGreaterThan(0);
        expect(urls.filter((url) => url.includes(key) || url.includes(encodeURIComponent(key)))).toEqual([]);
        expect(opened.problems).toEqual([]);
      });
    },
  );
});
