/**
 * The warm Chromium of the Chromium converter: one browser process, launched on first use, that
 * every job borrows (a job with scripts opens a BrowserContext of its own, one without takes turns
 * in the browser's warm tabs: see page-render.ts), with
 * at most `concurrency` jobs at once and a FIFO queue behind them. Like the LibreOffice pool
 * (office/libreoffice-pool.ts), the browser is replaced after `maxJobs` jobs (its memory only
 * grows), when it crashed or disconnected, and when a job could not close its context (a hung
 * renderer); a replaced browser finishes its running jobs first. close() fails queued jobs,
 * closes the browser and kills it if it does not go, so no process outlives the converter.
 *
 * A pre-opened tab: opening a context and its first page starts a renderer process, a third of a
 * small job's time. So when a job takes its tab, the pool already opens the next one (a new
 * context, with the options this job asked for) while the job renders, and the next job asking
 * for the same options gets it ready. A spare tab is fresh, never shown a page, and goes to one
 * job only, so jobs stay as isolated as with a context opened on demand; it costs one idle
 * renderer per browser.
 */
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, BrowserServer, Page } from 'playwright-core';
import { abortError, awaitingEngine, engineWorking, raceAbort } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { ConverterStats } from '../../core/ports/index.js';
import { packageUnavailable } from '../../kit/engine-packages.js';
import { ownedTempDir } from '../../kit/process-temp.js';
import { PROFILE_MIN_AGE_MS, sweepChromiumProfiles } from './chromium-temp.js';

export interface BrowserPoolSettings {
  executablePath: string;
  /** Jobs running at once (pages open at once). */
  concurrency: number;
  /** Jobs after which the browser is replaced by a fresh one. */
  maxJobs: number;
  /** Longest a launch may take. */
  launchTimeoutMs: number;
  /** V8 heap cap of each page's renderer, in MiB. */
  jsHeapMb: number;
  /** Extra command-line switches. */
  args: readonly string[];
  onLaunch?: ((pid: number) => void) | undefined;
}

/** The browser and the pool's counters; also the converter's ConverterStats. */
export interface BrowserPoolStats extends ConverterStats {
  /** Browsers alive (1 when warm; 2 while a replaced one finishes its jobs). */
  processes: number;
  /** Jobs running now. */
  busy: number;
  /** Jobs waiting for a free slot. */
  queued: number;
  /** Browsers replaced: recycled + lost. */
  restarts: number;
  /** Browsers launched so far. */
  launched: number;
  /** Replaced after maxJobs jobs. */
  recycled: number;
  /** Crashed, disconnected, or killed because a job's context would not close. */
  lost: number;
  /** The current browser's pid, when it runs. */
  pid: number | undefined;
}

/** A fresh context and its one blank page, for one job. */
export interface Tab {
  context: BrowserContext;
  page: Page;
}

/** Opens a tab for the job; the job closes its context when done. */
export type OpenTab = (options: BrowserContextOptions) => Promise<Tab>;

/**
 * The warm tabs of one browser that jobs without scripts take turns in (page-render.ts decides
 * which jobs may, and wires a tab once). A tab is handed to one job at a time; what a job gives
 * back the next may take, and a tab the browser's replacement leaves behind closes with it.
 */
export class WarmTabs<T extends Tab = Tab> {
  private readonly idle: T[] = [];
  private closed = false;

  /** An idle warm tab, or undefined when there is none. */
  take(): T | undefined {
    return this.idle.pop();
  }

  /** Puts a tab back for the next job; closes it instead when the browser is going. */
  give(tab: T): void {
    if (this.closed) tab.context.close().catch(() => {});
    else this.idle.push(tab);
  }

  /** Closes the idle tabs (the browser is being replaced or closed). */
  close(): void {
    this.closed = true;
    for (const tab of this.idle.splice(0)) tab.context.close().catch(() => {});
  }
}

interface Spare {
  /** The options it was opened with, as JSON: it only serves a job asking for the same. */
  key: string;
  tab: Promise<Tab>;
}

interface Instance {
  /** The browser process, which only launchServer() hands out: its pid, and kill(). */
  server: BrowserServer;
  browser: Browser;
  pid: number | undefined;
  jobs: number;
  active: number;
  retired: boolean;
  /** The next job's tab, opening or open. */
  spare: Spare | undefined;
  /** Tabs that jobs without scripts take turns in. */
  warm: WarmTabs;
  /**
   * Its dir in the pool's temp dir: Playwright's artifacts dir (downloads, traces). Removed when
   * the browser is closed or killed; that of a browser that crashed goes with the pool's.
   */
  dir: string;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Switches for a browser that renders untrusted pages and talks to nobody. The proxy pointing at
 * a closed port (set by launch(), loopback included) is the backstop behind the per-context
 * request interception: whatever request escaped it would still reach no server. WebRTC may not
 * use UDP outside that proxy, so it cannot reach one either.
 */
const SWITCHES = [
  '--headless',
  '--no-sandbox', // chromium's sandbox refuses to start as root, which containers often are
  '--disable-gpu',
  '--disable-dev-shm-usage', // /dev/shm is 64 MB in Docker: large pages crashed the renderer
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-quic',
  '--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--mute-audio',
];

export function closedError(): FileconvError {
  return new FileconvError('CANCELED', 'The Chromium converter was closed.');
}

export class BrowserPool {
  private current: Instance | undefined;
  private launching: Promise<Instance> | undefined;
  private readonly instances = new Set<Instance>();
  private readonly waiting: Waiter[] = [];
  private readonly stopping = new Set<Promise<void>>();
  private running = 0;
  private closed = false;
  private counts = { launched: 0, recycled: 0, lost: 0 };
  /** fileconv-chromium-<pid>-XXXXXX, made on the first launch (see chromium-temp.ts). */
  private root: Promise<string> | undefined;
  private nextDir = 0;
  /** The second sweep, for profiles too young at the first (see tempRoot()). */
  private sweepLater: NodeJS.Timeout | undefined;

  constructor(private readonly settings: BrowserPoolSettings) {}

  /**
   * Runs `work` on the warm browser once a slot is free. `work` gets a function that opens its
   * tab (call it once) and one that declares the browser broken (a context that would not
   * close): it is then killed and the next job launches a fresh one.
   */
  async run<T>(
    signal: AbortSignal,
    work: (openTab: OpenTab, discard: () => void, warm: WarmTabs) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw closedError();
    // Until a slot is free and the browser is up, the job's time is spent by the pool, not its page.
    awaitingEngine(signal);
    await this.acquire(signal);
    let instance: Instance | undefined;
    try {
      instance = await raceAbort(this.browser(), signal);
      engineWorking(signal);
      instance.jobs++;
      instance.active++;
      const used = instance;
      return await work(
        (options) => this.openTab(used, options),
        () => this.discard(used),
        used.warm,
      );
    } finally {
      if (instance) {
        instance.active--;
        if (instance.jobs >= this.settings.maxJobs && !instance.retired) {
          this.counts.recycled++;
          this.retire(instance);
        } else if (instance.retired && instance.active === 0) {
          this.stop(instance);
        }
      }
      this.release();
    }
  }

  stats(): BrowserPoolStats {
    const { recycled, lost } = this.counts;
    return {
      processes: this.instances.size,
      busy: this.running,
      queued: this.waiting.length,
      restarts: recycled + lost,
      ...this.counts,
      pid: this.current?.pid,
    };
  }

  /** Fails queued jobs (CANCELED), closes every browser (killing one that does not go). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.sweepLater);
    for (const waiter of this.waiting.splice(0)) waiter.reject(closedError());
    await this.launching?.catch(() => undefined);
    for (const instance of [...this.instances]) this.stop(instance);
    this.current = undefined;
    while (this.stopping.size > 0) await Promise.all([...this.stopping]);
    const root = await this.root?.catch(() => undefined);
    this.root = undefined;
    if (root) await rm(root, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
  }

  /**
   * The pool's temp dir, made on the first launch, when what the Chromiums of SIGKILLed
   * processes left goes too: their pool dirs, and the profiles Playwright made for them. The
   * profile of a predecessor killed moments ago is too young to judge: a second sweep a minute
   * later takes it.
   */
  private tempRoot(): Promise<string> {
    // os.tmpdir() read now, as Playwright does for the profile.
    this.root ??= (async () => {
      const parent = tmpdir();
      const { young } = await sweepChromiumProfiles(parent);
      if (young > 0 && !this.closed) {
        this.sweepLater = setTimeout(() => {
          this.sweepLater = undefined;
          if (!this.closed) this.track(sweepChromiumProfiles(parent));
        }, PROFILE_MIN_AGE_MS + 1_000);
        this.sweepLater.unref();
      }
      return ownedTempDir(parent, 'fileconv-chromium');
    })().catch((error: unknown) => {
      this.root = undefined; // a full disk now need not fail every later launch
      throw error;
    });
    return this.root;
  }

  private acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    if (this.running < this.settings.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(abortError(signal));
      };
      const waiter: Waiter = {
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /**
   * The spare tab when it was opened with these options, else a new one; then opens the spare
   * for the next job, unless this browser is about to be replaced.
   */
  private openTab(instance: Instance, options: BrowserContextOptions): Promise<Tab> {
    const key = JSON.stringify(options);
    const spare = instance.spare;
    instance.spare = undefined;
    let tab: Promise<Tab>;
    if (spare?.key === key) {
      // A spare that failed to open (the browser died meanwhile) gets one more try, as on demand.
      tab = spare.tab.catch(() => newTab(instance.browser, options));
    } else {
      if (spare) this.track(spare.tab.then(({ context }) => context.close()));
      tab = newTab(instance.browser, options);
    }
    if (!instance.retired && !this.closed && instance.jobs < this.settings.maxJobs) {
      const next = newTab(instance.browser, options);
      next.catch(() => {}); // seen by the job that takes it, or by nobody when the browser goes
      instance.spare = { key, tab: next };
    }
    return tab;
  }

  /** Hands the slot to the next waiter, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next && !this.closed) next.resolve();
    else this.running--;
  }

  /** The warm browser, launched when there is none (or it died). */
  private browser(): Promise<Instance> {
    const current = this.current;
    if (current && !current.retired && current.browser.isConnected()) return Promise.resolve(current);
    if (current) {
      this.counts.lost++;
      this.retire(current);
    }
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Instance> {
    let chromium: typeof import('playwright-core').chromium;
    try {
      ({ chromium } = await import('playwright-core'));
    } catch (error) {
      throw packageUnavailable('chromium', 'playwright-core', 'driving Chromium', error);
    }
    let server: BrowserServer;
    let browser: Browser;
    const dir = join(await this.tempRoot(), `browser-${this.nextDir++}`);
    // Recursive: the root may have been removed under the pool (a TMPDIR cleaner).
    await mkdir(dir, { recursive: true });
    try {
      // launchServer + connect rather than launch: only a server gives the process (its pid for
      // the tests and stats, kill() for a browser that will not close). The server listens on
      // loopback at an unguessable path, and the pages' requests cannot reach loopback.
      server = await chromium.launchServer({
        executablePath: this.settings.executablePath,
        headless: true,
        host: '127.0.0.1',
        timeout: this.settings.launchTimeoutMs,
        args: [
          ...SWITCHES,
          `--js-flags=--max-old-space-size=${this.settings.jsHeapMb}`,
          ...this.settings.args,
        ],
        // A proxy nobody listens on (port 9, discard), loopback included: see SWITCHES.
        proxy: { server: 'http://127.0.0.1:9', bypass: '' },
        // Playwright's own signal handlers would kill the browser under the host's feet; the
        // host closes the engine, and Playwright still kills the browser when this process exits.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        // In the pool's own dir rather than TMPDIR's playwright-artifacts-XXXXXX, which a SIGKILL
        // would leave behind for good (see chromium-temp.ts).
        artifactsDir: dir,
      });
    } catch (error) {
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      throw new FileconvError(
        'ENGINE_UNAVAILABLE',
        `Chromium did not start (${this.settings.executablePath}): ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    try {
      browser = await chromium.connect(server.wsEndpoint(), { timeout: this.settings.launchTimeoutMs });
    } catch (error) {
      await server.kill().catch(() => {});
      await rm(dir, { recursive: true, force: true }).catch(() => {});
      throw new FileconvError('CONVERSION_FAILED', 'Could not connect to the Chromium just launched.', {
        cause: error,
      });
    }
    const pid = server.process().pid;
    const instance: Instance = {
      server,
      browser,
      pid,
      jobs: 0,
      active: 0,
      retired: false,
      spare: undefined,
      warm: new WarmTabs(),
      dir,
    };
    this.counts.launched++;
    this.instances.add(instance);
    browser.on('disconnected', () => {
      instance.warm.close();
      if (this.current === instance) this.current = undefined;
      if (!instance.retired && !this.closed) this.counts.lost++;
      instance.retired = true;
      this.instances.delete(instance);
    });
    if (pid !== undefined) this.settings.onLaunch?.(pid);
    if (this.closed) {
      this.stop(instance);
      throw closedError();
    }
    this.current = instance;
    return instance;
  }

  /** Takes the browser out of service; it closes once its running jobs are done. */
  private retire(instance: Instance): void {
    instance.retired = true;
    instance.warm.close();
    if (this.current === instance) this.current = undefined;
    if (instance.active === 0) this.stop(instance);
  }

  private discard(instance: Instance): void {
    if (!instance.retired) this.counts.lost++;
    instance.retired = true;
    instance.warm.close();
    if (this.current === instance) this.current = undefined;
    this.kill(instance);
  }

  /** Closes the browser; kills it when it has not gone within 5 s. */
  private stop(instance: Instance): void {
    this.instances.delete(instance);
    instance.warm.close();
    const closing = Promise.race([
      instance.browser
        .close()
        .then(() => instance.server.close())
        .then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000).unref()),
    ]).then((closed) => {
      if (closed) return removeDir(instance);
      this.kill(instance);
    });
    this.track(closing);
  }

  private kill(instance: Instance): void {
    this.instances.delete(instance);
    this.track(instance.server.kill().finally(() => removeDir(instance)));
  }

  private track(work: Promise<unknown>): void {
    const tracked: Promise<void> = work
      .then(() => {})
      .catch(() => {})
      .finally(() => this.stopping.delete(tracked));
    this.stopping.add(tracked);
  }
}

function removeDir(instance: Instance): Promise<void> {
  return rm(instance.dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
}

async function newTab(browser: Browser, options: BrowserContextOptions): Promise<Tab> {
  const context = await browser.newContext(options);
  try {
    return { context, page: await context.newPage() };
  } catch (error) {
    await context.close().catch(() => {});
    throw error;
  }
}
