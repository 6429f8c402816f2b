/**
 * Issue 29 on the web page, in Chromium: an element with the hidden attribute is never shown nor
 * reachable (the PDF tool's fields follow the tool chosen); a file's targets come grouped, the
 * common ones first, with a filter box; the drop zone shows a drag over it and keeps its inputs
 * reachable by keyboard; the quota's reset time is said once, in the browser's local time.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { definePlans } from '../../src/core/policy/plans.js';
import { pdfOperations } from '../../src/operations/pdf/index.js';
import { defaultConverters } from '../../src/preset/converters.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { call, FIXTURES, HTTP_ADAPTER, movableClock, startServer } from '../http/harness.js';
import {
  CHROMIUM_INSTALL,
  chooserByKeyboard,
  chromiumAvailable,
  convertAllButton,
  copyAs,
  planRegion,
  sharedBrowser,
  tabTo,
  targetSelect,
  visibleText,
} from './web-page.js';

/** Engines that give a JPEG targets in several families (images, documents, text), quick to check. */
const JPEG_CONVERTERS = defaultConverters().filter((entry) =>
  ['sharp', 'imagemagick', 'pdf', 'ocr', 'libjxl'].includes(entry.name),
);

/** The image family's common targets, as the page lists them first (web/src/target-menu.ts). */
const IMAGE_COMMON = ['webp', 'png', 'jpg', 'avif', 'pdf'];

/** Every element with the hidden attribute whose computed display is not none, by id or tag. */
const shownHidden = (page: Page) =>
  page.evaluate<string[]>(`[...document.querySelectorAll('[hidden]')]
    .filter((element) => getComputedStyle(element).display !== 'none')
    .map((element) => element.id || element.tagName)`);

/** The groups of a <select> in order: label and option values. */
const groupsOf = (page: Page, label: string) =>
  targetSelect(page, label).evaluate((select) =>
    [
      ...(select as unknown as { querySelectorAll(s: string): Iterable<unknown> }).querySelectorAll(
        'optgroup',
      ),
    ].map((group) => {
      const element = group as {
        label: string;
        querySelectorAll(s: string): Iterable<{ value: string; hidden: boolean }>;
      };
      return {
        label: element.label,
        options: [...element.querySelectorAll('option')].map((option) => option.value),
        shown: [...element.querySelectorAll('option')].filter((option) => !option.hidden).map((o) => o.value),
      };
    }),
  );

// The page is the same through every HTTP adapter (web-converter.test.ts covers them): one is enough.
describe.runIf(HTTP_ADAPTER === 'express')('through one adapter', () => {
  describeWithEngine('chromium', chromiumAvailable(), CHROMIUM_INSTALL, 'web page layout (issue 29)', () => {
    const pages = sharedBrowser();

    it('hides every element with the hidden attribute, for each PDF tool chosen', async () => {
      const server = await startServer({
        router: { webConverter: true },
        engine: { operations: pdfOperations() },
      });
      const opened = await pages.open(server.url);
      const { page } = opened;
      await page.getByLabel('Choose files', { exact: true }).setInputFiles(join(FIXTURES, 'fixture.pdf'));
      const tool = page.getByLabel('PDF tool', { exact: true });
      await tool.waitFor();
      const tools = await tool
        .locator('option')
        .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
      expect(tools).toEqual(expect.arrayContaining(['merge', 'split', 'rotate']));
      for (const name of tools) {
        await tool.selectOption(name);
        expect(await shownHidden(page), name).toEqual([]);
      }
      // With merge chosen, the split and rotate fields are neither shown nor reachable by Tab.
      await tool.selectOption('merge');
      for (const field of ['Page ranges', 'Rotation']) {
        expect(await page.getByLabel(field, { exact: true }).isVisible(), field).toBe(false);
      }
      await tool.focus();
      await page.keyboard.press('Tab');
      const focused = await page.evaluate<string>('document.activeElement?.id ?? ""');
      expect(['page-ranges', 'rotation', 'pdf-file']).not.toContain(focused);
    }, 120_000);

    it("groups a JPEG's targets by family, the common ones first, and filters them", async () => {
      const server = await startServer({
        router: { webConverter: true },
        engine: { converters: JPEG_CONVERTERS },
      });
      const opened = await pages.open(server.url);
      const { page } = opened;
      const formats = JSON.parse((await call(server, 'GET', '/api/formats')).text) as {
        formats: { name: string; family: string; targets: { format: string }[] }[];
      };
      const jpeg = formats.formats.find((format) => format.name === 'jpg')!;
      const familyOf = new Map(formats.formats.map((format) => [format.name, format.family]));
      await page.getByLabel('Choose files', { exact: true }).setInputFiles(join(FIXTURES, 'fixture.jpg'));
      const groups = await groupsOf(page, 'fixture.jpg');
      const offered = jpeg.targets.map((target) => target.format);
      // Common first: the image list's targets the server offers, in the list's order.
      expect(groups[0]).toMatchObject({
        label: 'Common',
        options: IMAGE_COMMON.filter((name) => offered.includes(name)),
      });
      expect(groups[0]?.options.length).toBeGreaterThanOrEqual(3);
      // Then one group per family, each alphabetical and of one family; every target once.
      for (const group of groups.slice(1)) {
        expect(group.options, group.label).toEqual([...group.options].sort());
        expect(new Set(group.options.map((name) => familyOf.get(name))).size, group.label).toBe(1);
      }
      expect(groups.length).toBeGreaterThan(2);
      expect(groups.flatMap((group) => group.options).sort()).toEqual([...offered].sort());

      const filter = page.getByLabel('Filter formats for fixture.jpg', { exact: true });
      await filter.fill('pdf');
      const shown = (await groupsOf(page, 'fixture.jpg')).flatMap((group) => group.shown);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.every((name) => name.includes('pdf'))).toBe(true);
      expect(shown.length).toBeLessThan(offered.length);
      // The chosen target is one the filter shows.
      expect(shown).toContain(await targetSelect(page, 'fixture.jpg').inputValue());
      expect(opened.problems).toEqual([]);
    }, 180_000);

    it('shows a drag over the drop zone, and keeps its inputs reachable by keyboard', async () => {
      const server = await startServer({ router: { webConverter: true } });
      const opened = await pages.open(server.url);
      const { page } = opened;
      const zone = page.getByRole('group', { name: 'Add files', exact: true });
      const look = () =>
        zone.evaluate((element) => {
          type Style = { borderStyle: string; borderColor: string; backgroundColor: string };
          const style = (
            globalThis as unknown as { getComputedStyle(node: unknown): Style }
          ).getComputedStyle(element);
          return { border: style.borderStyle, color: style.borderColor, background: style.backgroundColor };
        });
      const idle = await look();
      const transfer = await page.evaluateHandle(`(() => {
      const data = new DataTransfer();
      data.items.add(new File(['x'], 'a.png', { type: 'image/png' }));
      return data;
    })()`);
      await zone.dispatchEvent('dragenter', { dataTransfer: transfer });
      const over = await look();
      expect(over).not.toEqual(idle);
      expect(await page.getByText('Drop to add the files', { exact: true }).isVisible()).toBe(true);
      await zone.dispatchEvent('dragleave', { dataTransfer: transfer });
      expect(await look()).toEqual(idle);
      expect(await page.getByText('Drop to add the files', { exact: true }).isVisible()).toBe(false);
      // The file input inside the zone is reached by Tab and opens the chooser from the keyboard.
      const chooseFiles = zone.getByLabel('Choose files', { exact: true });
      await tabTo(page, chooseFiles);
      const chooser = await chooserByKeyboard(page);
      await chooser.setFiles(join(FIXTURES, 'fixture.png'));
      await targetSelect(page, 'fixture.png').waitFor();
      expect(opened.problems).toEqual([]);
    }, 120_000);

    it('says when the quota resets once, in local time', async () => {
      const clock = movableClock(Date.now());
      const server = await startServer({
        clock,
        router: {
          webConverter: true,
          counters: createMemoryCounterStore({ now: clock.now }),
          plans: definePlans({ free: { conversionsPerDay: 1 } }),
        },
      });
      // The daily quota resets at midnight UTC: 05:30 in India, whatever the test machine's zone.
      const opened = await pages.open(server.url, { timezoneId: 'Asia/Kolkata', locale: 'en-GB' });
      const { page } = opened;
      await expect.poll(() => visibleText(planRegion(page))).toMatch(/Resets at/);
      const plan = await visibleText(planRegion(page));
      expect(plan.match(/05:30/g)).toHaveLength(1);
      expect(plan).not.toMatch(/\d{4}-\d{2}-\d{2}T|\bin \d+ (?:hours|minutes|seconds)\b/);

      const dir = await tempDir();
      const paths = await Promise.all(
        ['one.png', 'two.png'].map((name) => copyAs(join(FIXTURES, 'fixture.png'), dir, name)),
      );
      await page.getByLabel('Choose files', { exact: true }).setInputFiles(paths);
      await convertAllButton(page).click();
      const alert = page.getByRole('alert');
      await expect.poll(() => alert.textContent(), { timeout: 30_000 }).toMatch(/quota/i);
      const said = (await alert.textContent()) ?? '';
      expect(said.match(/05:30/g)).toHaveLength(1);
      expect(said).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
      expect(said).not.toMatch(/resets in/);
    }, 120_000);
  });
});
