/**
 * One warm LibreOffice worker: the Python bridge (uno-bridge.py) and the soffice.bin it starts,
 * spoken to over JSON lines on the bridge's stdin/stdout, one conversion at a time.
 *
 * Processes never outlive their owner: the bridge and soffice each die with their parent
 * (PR_SET_PDEATHSIG, set in the bridge), and every live pid is also SIGKILLed synchronously on
 * this process's 'exit' (libreoffice-guard.ts). A worker's profile dir and the sockets a killed
 * soffice leaves in /tmp are removed as soon as its bridge exits, whatever the reason.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { FileconvError } from '../../core/errors.js';
import { withoutBacktrace } from './libreoffice-errors.js';
import type { OfficeFamily } from './libreoffice-filters.js';
import { guardPid, processTicks, unguardPid } from './libreoffice-guard.js';
import type { OptionSettings } from './libreoffice-pdf-export.js';
import {
  createProfile,
  guardSockets,
  type OfficeProfile,
  removeProfile,
  sofficeEnv,
} from './libreoffice-profile.js';

/** One conversion as the bridge takes it; the options' settings (libreoffice-pdf-export.ts) ride along. */
export interface BridgeRequest extends OptionSettings {
  input: string;
  output: string;
  family: OfficeFamily;
  importFilter?: string;
  importOptions?: string;
  exportFilter: string;
  exportOptions?: string;
}

export type BridgeAnswer =
  | { ok: true }
  | { ok: false; kind: 'password' | 'corrupt' | 'failed' | 'crashed'; message: string };

type BridgeMessage =
  | { ready: true; pid: number; version: string | null }
  | { fatal: string }
  | (BridgeAnswer & { id: number });

export type SpawnKind = 'soffice' | 'bridge';

export interface WorkerLaunch {
  python: string;
  bridge: string;
  soffice: string;
  /** Directory for this worker's profile and soffice's TMPDIR; created here, removed on exit. */
  root: string;
  startupTimeoutMs: number;
  onSpawn?: ((pid: number, kind: SpawnKind) => void) | undefined;
}

/** The worker died (crash, kill) while a conversion was in flight. */
export class WorkerLostError extends Error {
  override readonly name = 'WorkerLostError';
}

const STDERR_TAIL = 4096;

type Startup = {
  resolve: (message: { pid: number; version: string | null }) => void;
  reject: (e: Error) => void;
};

export class OfficeWorker {
  /** Conversions done; the pool recycles the worker after a configured number. */
  conversions = 0;
  /** soffice.bin's pid, once the bridge has reported it. */
  sofficePid = 0;
  version: string | undefined;
  private nextId = 1;
  private pending: { id: number; settle: (answer: BridgeAnswer | WorkerLostError) => void } | undefined;
  private startup: Startup | undefined;
  private exited = false;
  private stderr = '';
  /** Settles once the bridge has exited (and reaped soffice) and the profile is removed. */
  private readonly finished: Promise<void>;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    profile: OfficeProfile,
    pipe: string,
  ) {
    // A write to a bridge that just died fails with EPIPE; its 'close' reports the loss.
    child.stdin.on('error', () => {});
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
    });
    createInterface({ input: child.stdout }).on('line', (line) => this.receive(line));
    // 'close' comes after 'exit' and the end of stdio: the bridge has reaped soffice by then.
    this.finished = new Promise<void>((resolve) => {
      child.once('close', () => resolve());
      child.once('error', () => resolve()); // spawn failure: no 'close' follows
    }).then(async () => {
      this.exited = true;
      if (child.pid !== undefined) unguardPid(child.pid);
      if (this.sofficePid) unguardPid(this.sofficePid);
      const lost = new WorkerLostError(`LibreOffice stopped unexpectedly${tail(this.stderr)}`);
      this.startup?.reject(lost);
      this.pending?.settle(lost);
      this.startup = undefined;
      this.pending = undefined;
      await removeProfile(profile, pipe);
    });
    if (child.pid !== undefined) guardPid(child.pid);
    guardSockets(profile, pipe);
  }

  /** Starts the bridge and its soffice; resolves once soffice accepts conversions. */
  static async start(launch: WorkerLaunch): Promise<OfficeWorker> {
    const profile = await createProfile(launch.root);
    const pipe = `fileconv-${process.pid}-${randomBytes(8).toString('hex')}`;
    const child = spawn(launch.python, [launch.bridge, launch.soffice, profile.url, pipe], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // UTF-8 on the pipes whatever the locale: paths in requests may be any Unicode.
      env: {
        ...sofficeEnv(profile),
        PYTHONIOENCODING: 'utf-8',
        PYTHONUTF8: '1',
        FILECONV_BRIDGE_PARENT: String(process.pid),
      },
      windowsHide: true,
    });
    const worker = new OfficeWorker(child, profile, pipe);
    if (child.pid !== undefined) launch.onSpawn?.(child.pid, 'bridge');
    let timer: NodeJS.Timeout | undefined;
    try {
      const ready = await new Promise<{ pid: number; version: string | null }>((resolve, reject) => {
        worker.startup = { resolve, reject };
        timer = setTimeout(
          () => reject(new Error(`no answer within ${launch.startupTimeoutMs} ms`)),
          launch.startupTimeoutMs,
        );
      });
      worker.sofficePid = ready.pid;
      worker.version = ready.version ?? undefined;
      guardPid(ready.pid);
      launch.onSpawn?.(ready.pid, 'soffice');
      return worker;
    } catch (error) {
      await worker.kill();
      throw new FileconvError('CONVERSION_FAILED', `LibreOffice did not start: ${(error as Error).message}`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      worker.startup = undefined;
    }
  }

  get alive(): boolean {
    return !this.exited;
  }

  get bridgePid(): number | undefined {
    return this.child.pid;
  }

  private receive(line: string): void {
    const message = parse(line);
    if (!message) return;
    if ('ready' in message) this.startup?.resolve(message);
    else if ('fatal' in message) this.startup?.reject(new Error(message.fatal));
    else if (this.pending?.id === message.id) {
      const { settle } = this.pending;
      this.pending = undefined;
      settle(message);
    }
  }

  /** Runs one conversion; rejects with WorkerLostError when the worker dies meanwhile. */
  convert(request: BridgeRequest): Promise<BridgeAnswer> {
    if (this.exited) return Promise.reject(new WorkerLostError('The LibreOffice worker has exited'));
    if (this.pending)
      return Promise.reject(new Error('OfficeWorker.convert: a conversion is already running'));
    const id = this.nextId++;
    return new Promise<BridgeAnswer>((resolve, reject) => {
      this.pending = {
        id,
        settle: (answer) => (answer instanceof WorkerLostError ? reject(answer) : resolve(answer)),
      };
      this.child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    });
  }

  /** Resident memory of soffice, from /proc/<pid>/status VmRSS; undefined when unreadable. */
  rssBytes(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.sofficePid}/status`, 'latin1');
      const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    } catch {
      return undefined;
    }
  }

  /** CPU ticks used so far by soffice and the bridge together. */
  cpuTicks(): number | undefined {
    const office = processTicks(this.sofficePid);
    const bridge = this.child.pid === undefined ? 0 : (processTicks(this.child.pid) ?? 0);
    return office === undefined ? undefined : office + bridge;
  }

  /** Graceful stop: EOF makes the bridge terminate soffice; after `graceMs`, kill. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.exited) this.child.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    const outcome = await Promise.race([this.finished, late]);
    clearTimeout(timer);
    if (outcome === 'late') await this.kill();
  }

  /**
   * SIGKILL for soffice first (a hung one ignores anything else; the bridge reaps soffice only on
   * its way out, so while it lives the pid is still ours), then EOF for the bridge, whose blocked
   * call now fails: it reaps soffice and exits. A bridge that does not, within 5 s, is killed too.
   */
  async kill(): Promise<void> {
    if (!this.exited) {
      if (this.sofficePid) {
        try {
          process.kill(this.sofficePid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      this.child.stdin.destroy();
      // Before soffice's pid is known (still starting), the bridge goes at once: soffice then
      // dies of PR_SET_PDEATHSIG.
      const timer = setTimeout(() => this.child.kill('SIGKILL'), this.sofficePid ? 5_000 : 0);
      await this.finished;
      clearTimeout(timer);
    }
    await this.finished;
  }
}

function parse(line: string): BridgeMessage | undefined {
  try {
    return JSON.parse(line) as BridgeMessage;
  } catch {
    return undefined;
  }
}

/** The last lines soffice printed, without a crash's backtrace. */
function tail(stderr: string): string {
  const text = withoutBacktrace(stderr).slice(-3).join(' | ');
  return text ? `: ${text}` : '';
}
