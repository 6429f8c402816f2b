/**
 * The Chromium converter: HTML and Markdown to PDF, HTML to PNG, JPEG and WebP, rendered by the
 * system's Chromium (Debian's `chromium`, or CHROMIUM_PATH) driven through playwright-core. Where
 * it is installed it is the html -> pdf path the graph prefers (modern CSS, web fonts, print CSS
 * as a browser does them); LibreOffice stays the fallback. It also renders a zipped page with its
 * stylesheets, fonts and images ('htmlzip', browser/zip-site.ts) and captures a web page by its
 * URL ('url', browser/web-source.ts), to the same targets.
 *
 * One browser is kept warm and every job gets a fresh BrowserContext of its own
 * (browser/browser-pool.ts); the browser is replaced after `maxJobsPerBrowser` jobs or when it
 * dies. Pages are untrusted: their scripts are off unless a job asks, and every request they make
 * is answered by the job's source (browser/page-source.ts) or refused: an uploaded page gets
 * itself, a zipped one its zip's entries, a URL's page what Node fetches for it from public
 * addresses (the webhooks' SSRF rules). Popups and downloads are refused, and each job has a hard
 * timeout (browser/page-render.ts). The output appears at `outputPath` only when complete.
 */
import { randomUUID } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { abortError, throwIfAborted } from '../../core/abort.js';
import { parseBooleanText } from '../../core/boolean-text.js';
import { FileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { edgeGuard } from '../../kit/converter-kit.js';
import { installLine, isInstalled, notInstalled } from '../../kit/engine-packages.js';
import { loadSharp } from '../../kit/libraries/sharp.js';
import { placeFile } from '../../kit/place-file.js';
import { type ZipLimits, zipLimitsSchema } from '../../kit/zip-safety.js';
import { BrowserPool, type BrowserPoolStats, closedError } from './browser-pool.js';
import { CHROMIUM_EDGES } from './chromium-edges.js';
import { CHROMIUM_INSTALL, chromiumVersion, locateChromium } from './chromium-locate.js';
import {
  CHROMIUM_OPTION_DEFAULTS,
  type ChromiumOptions,
  type ChromiumScreenshotOptions,
} from './chromium-options.js';
import { markdownPage } from './markdown-page.js';
import { renderPage } from './page-render.js';
import { documentSource, type PageSource } from './page-source.js';
import { CHROMIUM } from './registration.js';
import { pageUrl, webSource } from './web-source.js';
import { openZipSite, SITE_ZIP_LIMITS } from './zip-site.js';

export type { BrowserPoolStats as ChromiumStats } from './browser-pool.js';
export { CHROMIUM_EDGES } from './chromium-edges.js';
export { CHROMIUM_INSTALL } from './chromium-locate.js';
export {
  CHROMIUM_OPTION_DEFAULTS,
  type ChromiumOptions,
  type ChromiumPdfOptions,
  type ChromiumScreenshotOptions,
  chromiumPdfOptionsSchema,
} from './chromium-options.js';
export { CHROMIUM_REGISTRATION } from './registration.js';

export interface ChromiumConverterOptions {
  /** The browser. Default: CHROMIUM_PATH, else chromium, chromium-browser or google-chrome on PATH. */
  executablePath?: string;
  /** Pages rendered at once (each its own renderer process). Default min(4, os.availableParallelism()). */
  concurrency?: number;
  /** Jobs after which the browser is replaced by a fresh one. Default 200. */
  maxJobsPerBrowser?: number;
  /** Longest one job may take (load and render); a job's `timeoutSeconds` may only shorten it. Default 30000. */
  timeoutMs?: number;
  /** Longest the browser may take to start. Default 30000. */
  launchTimeoutMs?: number;
  /** Largest input file (HTML, Markdown, a site's zip), in bytes; INPUT_LIMIT_EXCEEDED past it, before it is read. Default 32 MiB. */
  maxInputBytes?: number;
  /** Decompression limits for a zipped page (htmlzip). Default SITE_ZIP_LIMITS: 10,000 entries, 128 MiB inflated, ratio 200. */
  zip?: Partial<ZipLimits>;
  /**
   * URL capture: also fetch from loopback, private and other non-public addresses (an intranet
   * deployment, tests); link-local and cloud metadata addresses (169.254.169.254,
   * fd00:ec2::254, 100.100.100.200) stay refused. Default $FILECONV_URL_ALLOW_PRIVATE (1/0,
   * true/false, on/off, yes/no), else false.
   */
  allowPrivateAddresses?: boolean;
  /**
   * Capture web pages by URL at all (the `url` source: an uploaded .url file, `{ "url": ... }`
   * over HTTP). Default $FILECONV_URL_CAPTURE (any boolean spelling), else true: a service that must never
   * fetch from the network on a client's word turns it off, and `url` then converts to nothing.
   */
  urlCapture?: boolean;
  /** URL capture: largest response (the page or one resource), inflated, in bytes. Default 32 MiB. */
  maxResponseBytes?: number;
  /** URL capture: largest sum of every response of one page, inflated, in bytes. Default 128 MiB. */
  maxFetchedBytes?: number;
  /** URL capture: redirects followed per request, each target checked again. Default 10. */
  maxRedirects?: number;
  /** V8 heap of each page's renderer, in MiB (only matters with `javascript`). Default 256. */
  jsHeapMb?: number;
  /** More Chromium switches, after the converter's own. Default none. */
  args?: string[];
  /** Called with each browser's pid once it runs (tests check that none outlives close()). */
  onLaunch?: (pid: number) => void;
  /** Called with each request, WebSocket, popup or download a page was refused. */
  onBlocked?: (what: string) => void;
}

export interface ChromiumConverter extends Converter<ChromiumOptions> {
  /** Fails queued jobs (CANCELED), closes the browser (killing it if it does not go). */
  close(): Promise<void>;
  /** The browser and its counters; undefined until the first conversion. */
  stats(): BrowserPoolStats | undefined;
}

export const CHROMIUM_DEFAULTS = {
  maxJobsPerBrowser: 200,
  timeoutMs: 30_000,
  launchTimeoutMs: 30_000,
  maxInputBytes: 32 * 1024 * 1024,
  jsHeapMb: 256,
  maxResponseBytes: 32 * 1024 * 1024,
  maxFetchedBytes: 128 * 1024 * 1024,
  maxRedirects: 10,
} as const;

export { pageUrl } from './web-source.js';
export { SITE_ZIP_LIMITS } from './zip-site.js';

const factoryOptionsSchema = z.strictObject({
  executablePath: z.string().min(1).optional(),
  concurrency: z.int().min(1).max(64).optional(),
  maxJobsPerBrowser: z.int().min(1).optional(),
  timeoutMs: z.int().min(1).max(86_400_000).optional(),
  launchTimeoutMs: z.int().min(1).max(600_000).optional(),
  maxInputBytes: z.int().min(1).optional(),
  zip: zipLimitsSchema.optional(),
  allowPrivateAddresses: z.boolean().optional(),
  urlCapture: z.boolean().optional(),
  maxResponseBytes: z.int().min(1).optional(),
  maxFetchedBytes: z.int().min(1).optional(),
  maxRedirects: z.int().min(0).max(100).optional(),
  jsHeapMb: z.int().min(16).max(16_384).optional(),
  args: z.array(z.string().startsWith('--')).optional(),
  onLaunch: z.custom<(pid: number) => void>((v) => typeof v === 'function').optional(),
  onBlocked: z.custom<(what: string) => void>((v) => typeof v === 'function').optional(),
});

/** Creates the Chromium converter. Options are checked here; a bad one throws INVALID_OPTIONS. Nothing starts until the first conversion. */
export function createChromiumConverter(options: ChromiumConverterOptions = {}): ChromiumConverter {
  const given = parseOptions(factoryOptionsSchema, options, 'createChromiumConverter');
  const settings = {
    timeoutMs: given.timeoutMs ?? CHROMIUM_DEFAULTS.timeoutMs,
    maxInputBytes: given.maxInputBytes ?? CHROMIUM_DEFAULTS.maxInputBytes,
    zip: { ...SITE_ZIP_LIMITS, ...given.zip },
    allowPrivateAddresses:
      given.allowPrivateAddresses ??
      parseBooleanText(process.env.FILECONV_URL_ALLOW_PRIVATE, 'FILECONV_URL_ALLOW_PRIVATE') ??
      false,
    fetchLimits: {
      maxResponseBytes: given.maxResponseBytes ?? CHROMIUM_DEFAULTS.maxResponseBytes,
      maxTotalBytes: given.maxFetchedBytes ?? CHROMIUM_DEFAULTS.maxFetchedBytes,
      maxRedirects: given.maxRedirects ?? CHROMIUM_DEFAULTS.maxRedirects,
    },
  };
  const urlCapture =
    given.urlCapture ?? parseBooleanText(process.env.FILECONV_URL_CAPTURE, 'FILECONV_URL_CAPTURE') ?? true;
  const edges = urlCapture ? CHROMIUM_EDGES : CHROMIUM_EDGES.filter((edge) => edge.from !== 'url');
  const guard = edgeGuard('chromium', edges);
  let located: Promise<string | { missing: string }> | undefined;
  let version: Promise<string | undefined> | undefined;
  let pool: BrowserPool | undefined;
  let closed = false;
  const locate = () => {
    located ??= locateChromium(given.executablePath);
    return located;
  };

  async function browserPool(): Promise<BrowserPool> {
    if (!isInstalled('playwright-core')) {
      const install = installLine('chromium');
      throw new FileconvError(
        'ENGINE_UNAVAILABLE',
        `The chromium engine needs the npm package 'playwright-core', which is not installed: run \`${install}\``,
        { details: { package: 'playwright-core', install } },
      );
    }
    const path = await locate();
    if (typeof path !== 'string') {
      throw new FileconvError('ENGINE_UNAVAILABLE', path.missing, { details: { install: CHROMIUM_INSTALL } });
    }
    if (closed) throw closedError();
    pool ??= new BrowserPool({
      executablePath: path,
      concurrency: given.concurrency ?? Math.min(4, availableParallelism()),
      maxJobs: given.maxJobsPerBrowser ?? CHROMIUM_DEFAULTS.maxJobsPerBrowser,
      launchTimeoutMs: given.launchTimeoutMs ?? CHROMIUM_DEFAULTS.launchTimeoutMs,
      jsHeapMb: given.jsHeapMb ?? CHROMIUM_DEFAULTS.jsHeapMb,
      args: given.args ?? [],
      onLaunch: given.onLaunch,
    });
    return pool;
  }

  /** Where the job's page comes from; the input is checked (size, zip limits, URL) before a browser is involved. */
  async function pageSource(ctx: ConvertContext<ChromiumOptions>): Promise<PageSource> {
    const { size } = await stat(ctx.inputPath);
    if (size > settings.maxInputBytes) {
      throw new FileconvError(
        'INPUT_LIMIT_EXCEEDED',
        `The input is ${size} bytes; the Chromium converter accepts at most ${settings.maxInputBytes}.`,
        { details: { size, maxInputBytes: settings.maxInputBytes } },
      );
    }
    if (ctx.from === 'htmlzip') return openZipSite(ctx.inputPath, settings.zip);
    const bytes = await readFile(ctx.inputPath);
    if (ctx.from === 'url') {
      return webSource({
        url: pageUrl(bytes.toString('utf8')),
        limits: settings.fetchLimits,
        allowPrivateAddresses: settings.allowPrivateAddresses,
        credentials: ctx.options,
        failOnHttpStatusCodes: ctx.options.failOnHttpStatusCodes,
      });
    }
    return documentSource(
      ctx.from === 'md' ? Buffer.from(await markdownPage(bytes.toString('utf8')), 'utf8') : bytes,
    );
  }

  async function run(ctx: ConvertContext<ChromiumOptions>): Promise<void> {
    guard(ctx.from, ctx.to);
    const { options } = ctx;
    const source = await pageSource(ctx);
    let rendered: Awaited<ReturnType<typeof renderPage>>;
    try {
      ctx.onProgress(0.05);
      const browsers = await browserPool();
      throwIfAborted(ctx.signal);
      // A request may shorten the converter's timeout, never lengthen it: on a shared service one
      // job could otherwise hold a browser slot for ten minutes.
      const timeoutMs =
        options.timeoutSeconds === undefined
          ? settings.timeoutMs
          : Math.min(settings.timeoutMs, Math.round(options.timeoutSeconds * 1000));
      rendered = await browsers.run(ctx.signal, (openTab, discard, warm) => {
        ctx.onProgress(0.1);
        return renderPage(openTab, discard, warm, {
          source,
          to: ctx.to,
          options,
          timeoutMs,
          signal: ctx.signal,
          maxPixels: ctx.limits.maxPixels,
          onBlocked: given.onBlocked,
        });
      });
    } finally {
      source.close();
    }
    throwIfAborted(ctx.signal);
    ctx.onProgress(0.9);
    const data =
      ctx.to === 'webp' ? await toWebp(rendered.data, options as ChromiumScreenshotOptions) : rendered.data;
    const scratch = join(ctx.tempDir, `chromium-${randomUUID()}.${ctx.to}`);
    await writeFile(scratch, data);
    await placeFile(scratch, ctx.outputPath);
  }

  return {
    ...CHROMIUM,
    edges,

    async available(): Promise<Availability> {
      if (!isInstalled('playwright-core')) return notInstalled('chromium', ['playwright-core']);
      const path = await locate();
      if (typeof path !== 'string') return { ok: false, reason: path.missing, install: CHROMIUM_INSTALL };
      version ??= chromiumVersion(path);
      const found = await version;
      return { ok: true, version: found ?? path };
    },

    async convert(ctx): Promise<ConvertResult> {
      throwIfAborted(ctx.signal);
      if (closed) throw closedError();
      ctx.onProgress(0);
      try {
        await run(ctx);
      } catch (error) {
        if (ctx.signal.aborted) throw abortError(ctx.signal);
        if (closed && !(error instanceof FileconvError)) throw closedError();
        if (error instanceof FileconvError) throw error;
        throw new FileconvError(
          'CONVERSION_FAILED',
          `Chromium failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
          { cause: error, details: { engine: 'chromium' } },
        );
      }
      ctx.onProgress(1);
      // The work happens in the browser's processes, which are not this process's children in a
      // way cpuUsage() sees: no CPU time is reported rather than a wrong one.
      return {};
    },

    async close(): Promise<void> {
      closed = true;
      await pool?.close();
    },

    stats: () => pool?.stats(),
  };
}

/** The PNG screenshot as WebP, with sharp (a dependency of fileconv itself). */
async function toWebp(png: Buffer, options: ChromiumScreenshotOptions): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(png)
    .webp({ quality: options.quality ?? CHROMIUM_OPTION_DEFAULTS.quality.webp })
    .toBuffer();
}
