/**
 * One job of the Chromium converter: a tab on the warm browser, the page opened in it with the
 * job's PageSource (page-source.ts) answering every request, then printed (page.pdf) or
 * photographed (page.screenshot). A job that runs scripts gets a fresh BrowserContext, closed
 * whatever happened; a job without scripts (the default) takes turns in a warm tab, which is
 * closed instead of reused once anything went wrong (see renderPage for why that is safe). In a
 * warm tab already at the page's address, an uploaded page is written in (setContent) rather
 * than navigated to and served: a request's round trip through Node less, a third of the load
 * time of the benchmark's invoice (bench/chromium.ts).
 *
 * What a hostile page can do, and what stops it:
 * - fetch anything (http(s) to the network or loopback, file:, ws:): every request of the
 *   context is intercepted and answered by the source or aborted. An uploaded page gets its own
 *   document (and a zipped one its zip's entries) from memory and nothing else; a URL source
 *   fetches from Node with the SSRF checks (web-source.ts). data: and blob: never leave the
 *   renderer. A page that tries to navigate itself somewhere the source refuses fails its job
 *   (UNSAFE_INPUT); refused images, styles and frames do not. WebSockets are closed before they
 *   connect. Chromium itself refuses file: subresources to an http origin, and the browser's
 *   dead proxy (browser-pool.ts) would catch whatever slipped by.
 * - run scripts: off unless the job asks (`javascript: true`); then a loop or a hang runs into the
 *   job's hard timeout, the context is closed (its renderer with it) and the browser lives on.
 * - eat memory: the input is capped before it is read, each renderer's V8 heap is capped by a
 *   launch switch; a renderer that dies anyway is INPUT_LIMIT_EXCEEDED.
 * - open popups or start downloads: a second page of the context is closed at once; downloads
 *   are refused by the context.
 */
import type { BrowserContext, BrowserContextOptions, Frame, Page, Request, Route } from 'playwright-core';
import { abortError } from '../../core/abort.js';
import { FileconvError, isFileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import type { OpenTab, Tab, WarmTabs } from './browser-pool.js';
import {
  CHROMIUM_OPTION_DEFAULTS,
  type ChromiumPdfOptions,
  type ChromiumScreenshotOptions,
  statusListed,
} from './chromium-options.js';
import type { PageSource } from './page-source.js';
import { unreachableUrl } from './web-fetch.js';

export interface RenderJob {
  /** Where the page and everything it loads come from. */
  source: PageSource;
  to: FormatName;
  options: ChromiumPdfOptions | ChromiumScreenshotOptions;
  timeoutMs: number;
  signal: AbortSignal;
  /** Largest screenshot, in device pixels. */
  maxPixels: number;
  /** What the context blocked, for tests and logs. */
  onBlocked?: ((what: string) => void) | undefined;
}

/** What came out: the PDF or the image (PNG or JPEG; WebP is encoded by the caller from PNG). */
export interface Rendered {
  data: Buffer;
  /** Requests, WebSockets, popups and downloads refused. */
  blocked: number;
}

function timeoutError(timeoutMs: number): FileconvError {
  return new FileconvError(
    'CONVERSION_TIMEOUT',
    `The page took longer than ${timeoutMs} ms to load and render, and was stopped.`,
    { details: { engine: 'chromium', timeoutMs } },
  );
}

function crashError(): FileconvError {
  return new FileconvError(
    'INPUT_LIMIT_EXCEEDED',
    'The page crashed the browser tab rendering it (it most likely needed more memory than allowed).',
    { details: { engine: 'chromium', reason: 'page crashed' } },
  );
}

/** The frame a request comes from; undefined when Playwright does not know it (a popup's first navigation). */
function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

function refusedNavigation(url: string): FileconvError {
  return new FileconvError('UNSAFE_INPUT', `The page tried to navigate to ${url}, which is refused.`, {
    details: { engine: 'chromium', url },
  });
}

/** Jobs a warm tab serves before it is closed and a fresh one opened: bounds what a renderer accumulates. */
const WARM_TAB_JOBS = 100;

/** The context a warm tab is opened with: the options every job without scripts shares. */
const WARM_CONTEXT: BrowserContextOptions = {
  javaScriptEnabled: false,
  acceptDownloads: false,
  serviceWorkers: 'block',
};

/** What the running job does with its tab's requests, popups and crashes (see wireTab). */
interface JobHooks {
  route(route: Route): Promise<void>;
  block(what: string): void;
  interrupt(error: FileconvError): void;
}

/** A tab with its handlers installed once; they pass everything to the job running in it, if any. */
export interface WiredTab extends Tab {
  hooks: JobHooks | undefined;
  /** Jobs it has served. */
  jobs: number;
  /** Its renderer crashed: never reused. */
  broken: boolean;
  /** The CSS media type emulated, once set: it holds across the tab's navigations. */
  media: 'print' | 'screen' | undefined;
}

/**
 * Installs the tab's guards: every request to the running job's source (none between jobs),
 * WebSockets closed, popups closed, downloads refused, dialogs dismissed, a crash failing the job.
 */
async function wireTab(tab: Tab): Promise<WiredTab> {
  const wired: WiredTab = { ...tab, hooks: undefined, jobs: 0, broken: false, media: undefined };
  await tab.context.route('**/*', (route: Route) =>
    wired.hooks ? wired.hooks.route(route) : route.abort('blockedbyclient').catch(() => {}),
  );
  await tab.context.routeWebSocket(/.*/, (socket) => {
    wired.hooks?.block(socket.url());
    return socket.close().catch(() => {});
  });
  // The page was opened blank, before these routes: it has requested nothing yet.
  tab.context.on('page', (popup) => {
    if (popup === tab.page) return;
    wired.hooks?.block(`popup closed ${popup.url()}`);
    popup.close().catch(() => {});
  });
  tab.page.on('download', (download) => {
    wired.hooks?.block(`download ${download.url()}`);
    download.cancel().catch(() => {});
  });
  tab.page.on('crash', () => {
    wired.broken = true;
    wired.hooks?.interrupt(crashError());
  });
  tab.page.on('dialog', (dialog) => dialog.dismiss().catch(() => {}));
  return wired;
}

/**
 * Renders `job`. A job without scripts takes a warm tab when one is idle (`warm`), and gives it
 * back once done: a page that runs nothing can leave nothing behind for the next (no storage,
 * no timers, no workers; the cache is off while requests are intercepted, and cookies a URL
 * capture was sent are cleared), and a warm renderer prints in a fraction of a new one's time
 * (0.1 s against 0.4 s for a small page, measured in bench/chromium.ts). A job with scripts,
 * or with its own device scale, gets a fresh context from `openTab`, closed when it ends. A
 * tab that failed, timed out or crashed is closed, never reused. `discard` is called when a
 * context would not close (the browser is then replaced).
 */
export async function renderPage(
  openTab: OpenTab,
  discard: () => void,
  warm: WarmTabs,
  job: RenderJob,
): Promise<Rendered> {
  const screenshot = job.to !== 'pdf';
  const image = job.options as ChromiumScreenshotOptions;
  const javaScriptEnabled = job.options.javascript ?? CHROMIUM_OPTION_DEFAULTS.javascript;
  const viewport = {
    width: image.width ?? CHROMIUM_OPTION_DEFAULTS.viewportWidth,
    height: image.height ?? CHROMIUM_OPTION_DEFAULTS.viewportHeight,
  };
  const scale = screenshot ? (image.deviceScaleFactor ?? CHROMIUM_OPTION_DEFAULTS.deviceScaleFactor) : 1;
  const reusable = !javaScriptEnabled && scale === CHROMIUM_OPTION_DEFAULTS.deviceScaleFactor;
  // The pool keeps plain tabs; the ones in `warm` were all wired here.
  let tab = reusable ? (warm.take() as WiredTab | undefined) : undefined;
  tab ??= await wireTab(
    await openTab(
      reusable
        ? WARM_CONTEXT
        : {
            ...WARM_CONTEXT,
            javaScriptEnabled,
            // What the page's scripts read; the requests' header is set by the web fetcher.
            ...(job.options.userAgent === undefined ? {} : { userAgent: job.options.userAgent }),
            ...(screenshot ? { viewport, deviceScaleFactor: scale } : {}),
          },
    ),
  );
  let blocked = 0;
  const block = (what: string) => {
    blocked++;
    job.onBlocked?.(what);
  };
  let interrupt: (error: FileconvError) => void = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    interrupt = reject;
  });
  interrupted.catch(() => {});
  const timer = setTimeout(() => interrupt(timeoutError(job.timeoutMs)), job.timeoutMs);
  const onAbort = () => interrupt(abortError(job.signal));
  job.signal.addEventListener('abort', onAbort, { once: true });
  // Stops the source's own work (the web source's requests) once the job is over, however it ended.
  const over = new AbortController();
  let work: Promise<Buffer> | undefined;
  let done = false;
  try {
    if (job.signal.aborted) throw abortError(job.signal);
    if (reusable) {
      // A warm tab keeps the last job's viewport: set this one's (screenshots) or the default.
      const size = screenshot
        ? viewport
        : { width: CHROMIUM_OPTION_DEFAULTS.viewportWidth, height: CHROMIUM_OPTION_DEFAULTS.viewportHeight };
      const current = tab.page.viewportSize();
      if (current?.width !== size.width || current.height !== size.height)
        await tab.page.setViewportSize(size);
    }
    work = load(tab, job, over.signal, block, interrupt);
    const data = await Promise.race([work, interrupted]);
    done = true;
    return { data, blocked };
  } finally {
    clearTimeout(timer);
    job.signal.removeEventListener('abort', onAbort);
    over.abort();
    tab.hooks = undefined;
    work?.catch(() => {}); // rejects once the context closes under it
    tab.jobs++;
    if (reusable && done && !tab.broken && tab.jobs < WARM_TAB_JOBS && (await cleared(tab))) warm.give(tab);
    else await closeContext(tab.context, discard);
  }
}

/** Forgets the cookies a page was sent (a URL capture's Set-Cookie), so the tab's next job starts without them. */
async function cleared(tab: Tab): Promise<boolean> {
  return tab.context.clearCookies().then(
    () => true,
    () => false,
  );
}

/** A URL without its fragment, which requests never carry. */
function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

async function load(
  tab: WiredTab,
  job: RenderJob,
  over: AbortSignal,
  block: (what: string) => void,
  interrupt: (error: FileconvError) => void,
): Promise<Buffer> {
  const { page } = tab;
  const target = await job.source.open(over);
  let served = false;
  const route = async (route: Route) => {
    const request = route.request();
    const url = request.url();
    const navigation = request.isNavigationRequest();
    // The page's own first navigation, the one page.goto() starts below.
    const document = !served && navigation && url === withoutFragment(target);
    if (document) served = true;
    const frame = frameOf(request);
    // A navigation outside the page's own frames is a popup's (Playwright may not know its frame yet).
    if (!document && navigation && (frame === undefined || frame.page() !== page)) {
      block(`popup ${url}`);
      return route.abort('blockedbyclient').catch(() => {});
    }
    let answer: Awaited<ReturnType<PageSource['respond']>>;
    try {
      answer = await job.source.respond(request, document);
    } catch (error) {
      interrupt(
        isFileconvError(error)
          ? error
          : new FileconvError('CONVERSION_FAILED', `Could not serve ${url} to the page.`, { cause: error }),
      );
      return route.abort('failed').catch(() => {});
    }
    const failOn = job.options.failOnResourceHttpStatusCodes;
    if (!document && !('refused' in answer) && failOn && statusListed(failOn, answer.status)) {
      interrupt(
        unreachableUrl(url, `the page's resource answered ${answer.status}`, undefined, answer.status),
      );
      return route.abort('failed').catch(() => {});
    }
    if ('refused' in answer) {
      block(url);
      // The page itself trying to go somewhere refused (a meta refresh, a script setting
      // location) would print a blank error page: the job fails, naming the address.
      if (navigation && frame !== undefined && frame === page.mainFrame()) {
        interrupt(answer.error ?? refusedNavigation(url));
      }
      return route.abort('blockedbyclient').catch(() => {});
    }
    // no-store: nothing one job was sent may be served from a cache to the tab's next job.
    // Caught: the context may close (timeout, abort) while the answer is on its way.
    return route
      .fulfill({ ...answer, headers: { ...answer.headers, 'cache-control': 'no-store' } })
      .catch(() => {});
  };
  tab.hooks = { route, block, interrupt };

  const options = job.options;
  const media = options.media ?? (job.to === 'pdf' ? 'print' : 'screen');
  if (tab.media !== media) {
    await page.emulateMedia({ media });
    tab.media = media;
  }
  const waitFor = options.waitFor ?? CHROMIUM_OPTION_DEFAULTS.waitFor;
  const waitUntil = waitFor === 'networkidle' ? 'networkidle' : 'load';
  if (job.source.inline !== undefined && page.url() === target) {
    // A warm tab already at the page's address (so at its origin, as a navigation would put
    // it): the document is written in, without a request. It counts as served: the page
    // reloading itself gets nothing, as after a navigation.
    served = true;
    await page.setContent(job.source.inline, { waitUntil, timeout: 0 });
  } else {
    const response = await page.goto(target, {
      waitUntil,
      timeout: 0, // renderPage's own timer stops the job
    });
    // Not response.ok(): the source decided which statuses fail (failOnHttpStatusCodes), and
    // an error page it let through is printed.
    if (!response) throw new FileconvError('CONVERSION_FAILED', 'Chromium did not load the page.');
  }
  if (waitFor !== 'load' && waitFor !== 'networkidle') {
    await page.waitForSelector(waitFor, { state: 'attached', timeout: 0 }).catch((error: unknown) => {
      throw new FileconvError('INVALID_OPTIONS', `waitFor: not a CSS selector Chromium accepts: ${waitFor}`, {
        cause: error,
      });
    });
  }
  if (job.to === 'pdf') return printPdf(page, options as ChromiumPdfOptions);
  return takeScreenshot(page, job);
}

async function printPdf(page: Page, options: ChromiumPdfOptions): Promise<Buffer> {
  const header = options.headerTemplate;
  const footer = options.footerTemplate;
  const withTemplates = header !== undefined || footer !== undefined;
  try {
    return await page.pdf({
      ...(options.width !== undefined && options.height !== undefined
        ? { width: options.width, height: options.height }
        : { format: options.paper ?? CHROMIUM_OPTION_DEFAULTS.paper }),
      ...(options.margin ? { margin: options.margin } : {}),
      landscape: options.landscape ?? CHROMIUM_OPTION_DEFAULTS.landscape,
      scale: options.scale ?? CHROMIUM_OPTION_DEFAULTS.scale,
      printBackground: options.printBackground ?? CHROMIUM_OPTION_DEFAULTS.printBackground,
      ...(options.pageRanges ? { pageRanges: options.pageRanges } : {}),
      preferCSSPageSize: options.preferCSSPageSize ?? false,
      displayHeaderFooter: withTemplates,
      // Chromium prints its own date and title when one template is given alone: an empty span
      // keeps the other edge empty.
      ...(withTemplates
        ? { headerTemplate: header ?? '<span></span>', footerTemplate: footer ?? '<span></span>' }
        : {}),
      outline: options.outline ?? CHROMIUM_OPTION_DEFAULTS.outline,
      tagged: options.tagged ?? CHROMIUM_OPTION_DEFAULTS.tagged,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/page range/i.test(message)) {
      throw new FileconvError('INVALID_OPTIONS', `pageRanges: ${message.split('\n')[0]}`, { cause: error });
    }
    throw error;
  }
}

async function takeScreenshot(page: Page, job: RenderJob): Promise<Buffer> {
  const options = job.options as ChromiumScreenshotOptions;
  const fullPage = options.fullPage ?? CHROMIUM_OPTION_DEFAULTS.fullPage;
  const scale = options.deviceScaleFactor ?? CHROMIUM_OPTION_DEFAULTS.deviceScaleFactor;
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  // The page's size is read by the DevTools protocol, which works with the page's scripts off.
  const [width, height] = fullPage
    ? ((await page.evaluate(
        // A string: this package is compiled without the DOM's types.
        '[Math.max(document.documentElement.scrollWidth, innerWidth), Math.max(document.documentElement.scrollHeight, innerHeight)]',
      )) as [number, number])
    : [viewport.width, viewport.height];
  const pixels = Math.ceil((width ?? 0) * scale) * Math.ceil((height ?? 0) * scale);
  if (pixels > job.maxPixels) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The page is ${width} x ${height} CSS pixels; as an image (${pixels} pixels) it passes the limit of ${job.maxPixels}.`,
      { details: { width, height, pixels, maxPixels: job.maxPixels } },
    );
  }
  const jpeg = job.to === 'jpg';
  return page.screenshot({
    type: jpeg ? 'jpeg' : 'png',
    fullPage,
    ...(jpeg ? { quality: options.quality ?? CHROMIUM_OPTION_DEFAULTS.quality.jpg } : {}),
    animations: 'disabled',
    caret: 'hide',
    timeout: 0,
  });
}

/**
 * Closes the context (and with it the job's renderer). A renderer stuck in a script still goes:
 * the browser disposes of the context. If even that hangs for 5 s, the browser is replaced.
 */
async function closeContext(context: BrowserContext, discard: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    context.close().then(
      () => true,
      () => true, // the browser is gone already
    ),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), 5_000);
    }),
  ]);
  clearTimeout(timer);
  if (!closed) discard();
}
