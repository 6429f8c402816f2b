/**
 * The warm LibreOffice pool: up to `size` workers (libreoffice-process.ts), each converting one
 * document at a time, and a FIFO queue for conversions. Workers start lazily, as many as
 * conversions wait for (started together: staggered starts were slower on two cores, the second
 * start then slowing the first worker's conversions), and a waiting conversion goes to whichever
 * worker is free first, warm or new: it waited for a cold start although a warm one had freed. A worker is replaced after `maxConversions` conversions or once its soffice grows past
 * `maxRssBytes` (LibreOffice's heap only grows), and killed, failing only its own job, when a
 * conversion passes `timeoutMs` or is aborted; the next job starts a fresh one. close() stops
 * everything and removes the pool's temp dir.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { abortError, awaitingEngine, engineWorking, raceAbort } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { ConverterStats } from '../../core/ports/index.js';
import { clockTicks } from '../../kit/cpu-time.js';
import { ownedTempDir } from '../../kit/process-temp.js';
import { answerError, closedError, timeoutError } from './libreoffice-errors.js';
import { guardPath, unguardPath } from './libreoffice-guard.js';
import {
  type BridgeAnswer,
  type BridgeRequest,
  OfficeWorker,
  type SpawnKind,
  WorkerLostError,
} from './libreoffice-process.js';

export interface PoolSettings {
  size: number;
  maxConversions: number;
  maxRssBytes: number;
  timeoutMs: number;
  startupTimeoutMs: number;
  /** Parent of the pool's own temp dir (profiles, soffice's TMPDIR). */
  tempDir: string;
  python: string;
  bridge: string;
  soffice: string;
  onSpawn?: ((pid: number, kind: SpawnKind) => void) | undefined;
}

/** The pool's workers and counters; also the converter's ConverterStats (processes, busy, queued, restarts). */
export interface PoolStats extends ConverterStats {
  /** Live workers (each one soffice driven by one bridge). */
  processes: number;
  /** Live workers converting now. */
  busy: number;
  /** Workers replaced: recycled + killed + lost. */
  restarts: number;
  /** Live workers: soffice and bridge pids, conversions done, busy or idle. */
  workers: { sofficePid: number; bridgePid: number | undefined; conversions: number; busy: boolean }[];
  queued: number;
  /** Workers started so far, replaced after N conversions or for memory, killed for a timeout/abort or lost. */
  started: number;
  recycled: number;
  killed: number;
  lost: number;
}

interface Job {
  request: BridgeRequest;
  signal: AbortSignal;
  onStart: () => void;
  resolve: (result: { cpuMs?: number }) => void;
  reject: (error: unknown) => void;
  detach: () => void;
}

interface Slot {
  worker: OfficeWorker | undefined;
  busy: boolean;
  /** Its worker's start, while it runs; the slot takes no conversion until it is up. */
  starting: Promise<void> | undefined;
}

export class LibreOfficePool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private readonly stopping = new Set<Promise<void>>();
  private root: Promise<string> | undefined;
  private closed = false;
  private counts = { started: 0, recycled: 0, killed: 0, lost: 0 };
  private nextWorker = 1;

  constructor(private readonly settings: PoolSettings) {
    this.slots = Array.from({ length: settings.size }, () => ({
      worker: undefined,
      busy: false,
      starting: undefined,
    }));
  }

  /** Converts one document; `onStart` runs when a worker takes it. Resolves with its CPU time. */
  run(request: BridgeRequest, signal: AbortSignal, onStart: () => void): Promise<{ cpuMs?: number }> {
    if (this.closed) return Promise.reject(closedError());
    if (signal.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      // Aborted while queued: leave the queue at once; no worker ever sees it.
      const onAbort = () => {
        const index = this.queue.indexOf(job);
        if (index < 0) return;
        this.queue.splice(index, 1);
        reject(abortError(signal));
      };
      const job: Job = {
        request,
        signal,
        onStart,
        resolve,
        reject,
        detach: () => signal.removeEventListener('abort', onAbort),
      };
      signal.addEventListener('abort', onAbort, { once: true });
      // Until a worker is up and takes it, the job's time is spent by the pool, not its document.
      awaitingEngine(signal);
      this.queue.push(job);
      this.pump();
    });
  }

  stats(): PoolStats {
    const workers = this.slots.flatMap(({ worker, busy }) =>
      worker?.alive
        ? [
            {
              sofficePid: worker.sofficePid,
              bridgePid: worker.bridgePid,
              conversions: worker.conversions,
              busy,
            },
          ]
        : [],
    );
    const { recycled, killed, lost } = this.counts;
    return {
      processes: workers.length,
      busy: workers.filter((worker) => worker.busy).length,
      restarts: recycled + killed + lost,
      workers,
      queued: this.queue.length,
      ...this.counts,
    };
  }

  /** Fails queued jobs (CANCELED), kills running ones, stops idle workers, removes the temp dir. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      job.detach();
      job.reject(closedError());
    }
    for (const slot of this.slots) {
      const { worker } = slot;
      slot.worker = undefined;
      if (worker) this.track(slot.busy ? worker.kill() : worker.stop(5_000));
    }
    while (this.stopping.size > 0) await Promise.all([...this.stopping]);
    const root = this.root;
    this.root = undefined;
    const path = await root?.catch(() => undefined);
    if (!path) return;
    await rm(path, { recursive: true, force: true }).catch(() => {});
    unguardPath(path);
  }

  /**
   * Hands waiting conversions to idle warm workers, and starts a worker in a free slot for each
   * one still waiting beyond those starting. A conversion is bound to no worker until one is
   * free: the first to be (warm or new) takes it.
   */
  private pump(): void {
    if (this.closed) return;
    while (this.queue.length > 0) {
      const slot = this.slots.find(
        (candidate) => !candidate.busy && !candidate.starting && candidate.worker?.alive,
      );
      if (!slot) break;
      this.dispatch(slot, this.queue.shift()!);
    }
    const starting = this.slots.filter((candidate) => candidate.starting).length;
    if (this.queue.length <= starting) return;
    const empty = this.slots.find(
      (candidate) => !candidate.busy && !candidate.starting && !candidate.worker?.alive,
    );
    if (!empty) return;
    this.startIn(empty);
    this.pump(); // more may wait than are starting now
  }

  /** Starts a worker in `slot`; a start that fails fails the oldest waiting conversion with its error. */
  private startIn(slot: Slot): void {
    const starting = this.workerFor(slot).then(
      () => {},
      (error: unknown) => {
        const job = this.queue.shift();
        job?.detach();
        job?.reject(error);
      },
    );
    slot.starting = starting;
    this.track(starting); // close() waits for a worker still starting
    void starting.finally(() => {
      slot.starting = undefined;
      this.pump();
    });
  }

  private dispatch(slot: Slot, job: Job): void {
    job.detach();
    slot.busy = true;
    this.execute(slot, job).finally(() => {
      slot.busy = false;
      this.pump();
    });
  }

  private track(stop: Promise<void>): void {
    const tracked = stop.catch(() => {}).finally(() => this.stopping.delete(tracked));
    this.stopping.add(tracked);
  }

  private async workerFor(slot: Slot): Promise<OfficeWorker> {
    if (slot.worker?.alive) return slot.worker;
    if (slot.worker) this.counts.lost++; // died while idle
    slot.worker = undefined;
    // fileconv-office-<pid>-XXXXXX: the roots of pools whose process died by SIGKILL go on the way.
    // A root that could not be made (a full disk) is tried again by the next job, not kept.
    this.root ??= ownedTempDir(this.settings.tempDir, 'fileconv-office').then(
      (path) => {
        guardPath(path);
        return path;
      },
      (error: unknown) => {
        this.root = undefined;
        throw error;
      },
    );
    const root = join(await this.root, `worker-${this.nextWorker++}`);
    const worker = await OfficeWorker.start({ ...this.settings, root });
    this.counts.started++;
    if (this.closed) {
      this.track(worker.kill());
      throw closedError();
    }
    slot.worker = worker;
    return worker;
  }

  /** Runs `job` on `slot`'s warm worker and settles it; resolves when the slot is free again. */
  private async execute(slot: Slot, job: Job): Promise<void> {
    const { signal } = job;
    // Warm when handed over; one that died since (idle) is started again here, and an abort
    // meanwhile fails the job at once while the slot stays taken until that worker is up.
    const startup = this.workerFor(slot);
    this.track(startup.then(() => {}));
    let worker: OfficeWorker;
    try {
      worker = await raceAbort(startup, signal);
    } catch (error) {
      job.reject(error);
      await startup.catch(() => {});
      return;
    }
    try {
      engineWorking(signal);
      job.onStart();
      if (signal.aborted) throw abortError(signal); // by onStart itself
      job.resolve(await this.convertOn(slot, worker, job));
    } catch (error) {
      job.reject(error);
    }
  }

  private async convertOn(slot: Slot, worker: OfficeWorker, job: Job): Promise<{ cpuMs?: number }> {
    const { signal } = job;
    let reason: 'timeout' | 'abort' | undefined;
    const stop = (why: 'timeout' | 'abort') => {
      if (reason) return;
      reason = why;
      this.counts.killed++;
      slot.worker = undefined;
      this.track(worker.kill());
    };
    const timer = setTimeout(() => stop('timeout'), this.settings.timeoutMs);
    const onAbort = () => stop('abort');
    signal.addEventListener('abort', onAbort, { once: true });
    const before = worker.cpuTicks();
    let answer: BridgeAnswer;
    try {
      answer = await worker.convert(job.request);
    } catch (error) {
      if (reason === undefined) {
        this.counts.lost++;
        slot.worker = undefined;
      }
      throw this.failure(reason, signal, error);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    const after = worker.cpuTicks();
    worker.conversions++;
    if (!answer.ok && answer.kind === 'crashed') {
      // The bridge is on its way out: no later job may be handed to it meanwhile.
      this.counts.lost++;
      slot.worker = undefined;
      this.track(worker.kill());
    }
    this.recycleIfDue(slot, worker);
    if (reason) throw this.failure(reason, signal, undefined);
    if (!answer.ok) throw this.closed ? this.failure(undefined, signal, answer.message) : answerError(answer);
    if (before === undefined || after === undefined) return {};
    return { cpuMs: Math.round(((after - before) * 1000) / (await clockTicks())) };
  }

  private failure(
    reason: 'timeout' | 'abort' | undefined,
    signal: AbortSignal,
    cause: unknown,
  ): FileconvError {
    if (reason === 'abort') return abortError(signal);
    if (this.closed) return closedError(cause);
    if (reason === 'timeout') return timeoutError(this.settings.timeoutMs, cause);
    // The worker died under the conversion: 'crashed', which the converter retries once cold.
    const details =
      cause instanceof WorkerLostError ? { engine: 'libreoffice', reason: 'crashed' } : undefined;
    return new FileconvError('CONVERSION_FAILED', cause instanceof Error ? cause.message : String(cause), {
      cause,
      ...(details ? { details } : {}),
    });
  }

  /** Replaces a worker that has done its share or grown too big (its heap never shrinks back). */
  private recycleIfDue(slot: Slot, worker: OfficeWorker): void {
    if (slot.worker !== worker || !worker.alive) return;
    const rss = worker.rssBytes();
    if (
      worker.conversions < this.settings.maxConversions &&
      (rss === undefined || rss <= this.settings.maxRssBytes)
    )
      return;
    this.counts.recycled++;
    slot.worker = undefined;
    this.track(worker.stop());
  }
}
