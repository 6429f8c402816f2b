/**
 * Helpers for the browser tests of the web converter page (issue 19): Debian's chromium driven
 * by playwright-core, and the page's controls found by role and accessible name exactly as the
 * DOM contract (issue 19) names them, never by CSS class or id: a test breaks when the page stops
 * being usable by name, not when its markup is rearranged.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type FileChooser,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_INSTALL = 'apt-get install chromium';
export const TEST_RESULTS = join(import.meta.dirname, '..', '..', 'test-results');

/** Whether every command is on PATH (engines the converters and the independent checks need). */
export function commandsAvailable(...commands: string[]): boolean {
  return commands.every((command) => {
    try {
      execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
}

export const chromiumAvailable = (): boolean => existsSync(CHROMIUM);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox', // as root, chromium's sandbox refuses to start
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors and console errors of the page, for a final "nothing went wrong". */
  problems: string[];
}

/**
 * A fresh context on the page at `url`, loaded once its network is quiet (the formats list is
 * fetched on load) and the file input is there.
 */
export async function openPage(
  browser: Browser,
  url: string,
  options: BrowserContextOptions = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 800 },
    ...options,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${url}/`, { waitUntil: 'networkidle' });
  // The file input may wait for the formats list before it takes files.
  const chooseFiles = page.getByLabel('Choose files', { exact: true });
  await expect.poll(() => chooseFiles.isEnabled(), { timeout: 20_000 }).toBe(true);
  return { context, page, problems };
}

/**
 * One browser for the describe block that calls this (started before its first test, closed
 * after its last), and `open`, which opens a page in a fresh context closed after its test.
 */
export function sharedBrowser(): {
  open(url: string, options?: BrowserContextOptions): Promise<OpenedPage>;
} {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async open(url, options) {
      if (!browser) throw new Error('sharedBrowser().open() runs inside a test of its block');
      const opened = await openPage(browser, url, options);
      contexts.push(opened.context);
      return opened;
    },
  };
}

/** Problems other than the browser's own log line for an HTTP error status the test provoked. */
export function unexpectedProblems(problems: string[], ...statuses: number[]): string[] {
  return problems.filter((problem) => !statuses.some((status) => problem.includes(`status of ${status}`)));
}

/**
 * The text a person sees in `locator`: blocks on lines of their own ("Done" apart from
 * "Download x"), closed option panels left out; textContent runs them together and keeps those.
 */
export function visibleText(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point here
  return locator.innerText();
}

// ---- The contract's controls -----------------------------------------------------------------

export const fileList = (page: Page): Locator => page.getByRole('list', { name: 'Files', exact: true });

/** The list item of one file (by its name as text). */
export const fileItem = (page: Page, fileName: string): Locator =>
  fileList(page).getByRole('listitem').filter({ hasText: fileName });

export const targetSelect = (page: Page, fileName: string): Locator =>
  page.getByLabel(`Convert ${fileName} to`, { exact: true });

export const optionsButton = (page: Page, fileName: string): Locator =>
  page.getByRole('button', { name: `Options for ${fileName}`, exact: true });

export const optionsGroup = (page: Page, fileName: string): Locator =>
  page.getByRole('group', { name: `Options for ${fileName}`, exact: true });

/** A field of a file's options group by the property's title or name ("Quality" or "quality"). */
export const optionField = (page: Page, fileName: string, property: string): Locator =>
  optionsGroup(page, fileName).getByLabel(new RegExp(`^${property}\\b`, 'i'));

export const convertAllButton = (page: Page): Locator =>
  page.getByRole('button', { name: 'Convert all', exact: true });

export const downloadAllButton = (page: Page): Locator =>
  page.getByRole('button', { name: 'Download all as zip', exact: true });

export const downloadLink = (page: Page, outputName: string): Locator =>
  page.getByRole('link', { name: `Download ${outputName}`, exact: true });

export const planRegion = (page: Page): Locator =>
  page.getByRole('region', { name: 'Your plan', exact: true });

/** Opens a file's options group (unless open) and fills the fields: { Quality: 60, Width: 800 }. */
export async function setOptions(
  page: Page,
  fileName: string,
  values: Record<string, number>,
): Promise<void> {
  const button = optionsButton(page, fileName);
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  expect(await button.getAttribute('aria-expanded')).toBe('true');
  for (const [property, value] of Object.entries(values)) {
    await optionField(page, fileName, property).fill(String(value));
  }
}

/** The state a file's item says it is in, once it has left the working states. */
export async function settledState(
  page: Page,
  fileName: string,
  timeout = 90_000,
): Promise<'done' | 'failed'> {
  const item = fileItem(page, fileName);
  let state: 'done' | 'failed' | undefined;
  await expect
    .poll(
      async () => {
        const text = await visibleText(item);
        if (/Failed/.test(text)) state = 'failed';
        else if (/\bDone\b/.test(text)) state = 'done';
        return state;
      },
      { timeout, interval: 250 },
    )
    .toBeDefined();
  return state!;
}

/** Clicks (or otherwise activates) and returns the downloaded file's bytes and suggested name. */
export async function download(
  page: Page,
  activate: () => Promise<void>,
): Promise<{ bytes: Buffer; name: string; path: string }> {
  const [event] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), activate()]);
  const path = await event.path();
  return { bytes: await readFile(path), name: event.suggestedFilename(), path };
}

/** The text of the elements that describe `locator` (aria-describedby), e.g. a field's error. */
export function accessibleDescription(locator: Locator): Promise<string> {
  return locator.evaluate((element) => {
    type Node = { textContent: string | null; getAttribute(name: string): string | null };
    const doc = (globalThis as unknown as { document: { getElementById(id: string): Node | null } }).document;
    const ids = (element as unknown as Node).getAttribute('aria-describedby') ?? '';
    return ids
      .split(/\s+/)
      .map((id) => doc.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim();
  });
}

// ---- Keyboard -------------------------------------------------------------------------------

/** Presses Tab (or Shift+Tab) until `locator` has the focus; fails after `max` presses. */
export async function tabTo(page: Page, locator: Locator, options: { back?: boolean; max?: number } = {}) {
  const key = options.back ? 'Shift+Tab' : 'Tab';
  // One handle, then one round trip a press: the batch's keyboard test presses Tab ~100 times.
  const element = await locator.elementHandle();
  for (let presses = 0; presses < (options.max ?? 60); presses++) {
    const focused = await element?.evaluate(
      (node) =>
        node === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
    );
    if (focused) return;
    await page.keyboard.press(key);
  }
  throw new Error(`${key} never reached ${String(locator)}`);
}

/** Whether the focused `locator` shows its focus: an outline or a box shadow (":focus-visible"). */
export function showsFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const style = (
      globalThis as unknown as {
        getComputedStyle(node: unknown): { outlineStyle: string; outlineWidth: string; boxShadow: string };
      }
    ).getComputedStyle(element);
    const outline = style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0;
    return outline || style.boxShadow !== 'none';
  });
}

/**
 * Enter on the focused file input (or its "Choose files" control) opens the file chooser. On a
 * loaded machine headless Chromium has been seen to drop the first press, so it is tried up to
 * three times; a page that never opens it still fails.
 */
export async function chooserByKeyboard(page: Page, key = 'Enter'): Promise<FileChooser> {
  for (let attempt = 1; ; attempt++) {
    try {
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser', { timeout: 10_000 }),
        page.keyboard.press(key),
      ]);
      return chooser;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

/**
 * Picks `value` in the focused <select> by keys: Home, then ArrowDown until it is chosen (a
 * closed select changes its value on them), so the keys are used even when `value` was preset.
 */
export async function selectByArrows(page: Page, select: Locator, value: string): Promise<void> {
  const count = await select.locator('option').count();
  await page.keyboard.press('Home');
  for (let presses = 0; presses < count && (await select.inputValue()) !== value; presses++) {
    await page.keyboard.press('ArrowDown');
  }
  expect(await select.inputValue()).toBe(value);
}

// ---- Files ----------------------------------------------------------------------------------

/**
 * Drops files on `target` as a person dragging them from their desktop would: dragenter,
 * dragover and drop events carrying a DataTransfer of the files (built in the page).
 */
export async function dropFiles(
  target: Locator,
  files: Array<{ name: string; type: string; text: string }>,
): Promise<void> {
  const dataTransfer = await target.page().evaluateHandle((list) => {
    const scope = globalThis as unknown as {
      DataTransfer: new () => { items: { add(file: unknown): void } };
      File: new (parts: string[], name: string, options: { type: string }) => unknown;
    };
    const transfer = new scope.DataTransfer();
    for (const file of list) transfer.items.add(new scope.File([file.text], file.name, { type: file.type }));
    return transfer;
  }, files);
  for (const type of ['dragenter', 'dragover', 'drop']) await target.dispatchEvent(type, { dataTransfer });
}

/** Copies a fixture under another name into `dir` (distinct names give distinct output names). */
export async function copyAs(source: string, dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  await copyFile(source, path);
  return path;
}

// ---- Scroll, axe ------------------------------------------------------------------------------

/** The page scrolls sideways: the document is wider than the viewport. */
export function hasHorizontalScroll(page: Page): Promise<boolean> {
  return page.evaluate<boolean>(
    'document.documentElement.scrollWidth > document.documentElement.clientWidth',
  );
}

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's violations of impact serious or critical on the page as it is now. The page's CSP
 * allows only its own scripts, so the context must be opened with bypassCSP: true.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) {
    await page.addScriptTag({ content: await readFile(AXE_SOURCE, 'utf8') });
  }
  const violations = await page.evaluate<AxeViolation[]>(`
    axe.run(document, { resultTypes: ['violations'] }).then((results) =>
      results.violations.map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        help: violation.help,
        nodes: violation.nodes.map((node) => node.target.join(' ')),
      })),
    )`);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
