/**
 * In-process Queue: job ids wait in a priority heap (higher priority first, first in first out
 * within a priority) and are handed to the handler at most `concurrency` at a time. It is the
 * one-machine default; ids are not persisted, so after a restart the engine re-enqueues queued
 * jobs from the JobStore (which is what makes delivery at-least-once).
 */
import { FileconvError } from '../../core/errors.js';
import type { EnqueueOptions, Queue, QueueHandler } from '../../core/ports/index.js';
import {
  checkFunction,
  checkOptionsObject,
  checkPositiveInteger,
  invalidOption,
} from '../validate-options.js';

const ADAPTER = 'createMemoryQueue';

export interface MemoryQueueOptions {
  /** Called when a handler throws or rejects; delivery goes on. Default: `process.emitWarning`. */
  onError?: (error: unknown, jobId: string) => void;
}

interface Entry {
  jobId: string;
  priority: number;
  /** Enqueue order: breaks priority ties so equal priorities stay first in, first out. */
  sequence: number;
}

function defaultOnError(error: unknown, jobId: string): void {
  const message = error instanceof Error ? error.message : String(error);
  process.emitWarning(`fileconv queue handler failed for job ${jobId}: ${message}`, {
    code: 'FILECONV_QUEUE',
  });
}

function runsBefore(a: Entry, b: Entry): boolean {
  return a.priority > b.priority || (a.priority === b.priority && a.sequence < b.sequence);
}

/** A binary heap of entries: O(log n) enqueue and take, whatever the backlog. */
function createEntryHeap() {
  const heap: Entry[] = [];
  const swap = (i: number, j: number) => {
    [heap[i], heap[j]] = [heap[j]!, heap[i]!];
  };
  return {
    get size() {
      return heap.length;
    },
    push(entry: Entry): void {
      heap.push(entry);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!runsBefore(heap[i]!, heap[parent]!)) break;
        swap(i, parent);
        i = parent;
      }
    },
    take(): Entry | undefined {
      const first = heap[0];
      const last = heap.pop();
      if (heap.length === 0 || last === undefined) return first;
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let best = i;
        if (left < heap.length && runsBefore(heap[left]!, heap[best]!)) best = left;
        if (right < heap.length && runsBefore(heap[right]!, heap[best]!)) best = right;
        if (best === i) break;
        swap(i, best);
        i = best;
      }
      return first;
    },
  };
}

function closedError(): FileconvError {
  return new FileconvError('INVALID_STATE', 'The queue is closed.');
}

export function createMemoryQueue(options?: MemoryQueueOptions): Queue {
  const given = checkOptionsObject(ADAPTER, options);
  const onError = checkFunction(ADAPTER, 'onError', given.onError, defaultOnError);
  const waiting = createEntryHeap();
  let sequence = 0;
  let handler: QueueHandler | undefined;
  let concurrency = 1;
  let running = 0;
  let closed = false;
  let settled: (() => void) | undefined;
  let closing: Promise<void> | undefined;

  function report(error: unknown, jobId: string): void {
    try {
      onError(error, jobId);
    } catch {
      // A throwing error hook must not stop delivery either.
    }
  }

  function pump(): void {
    while (handler && !closed && running < concurrency) {
      const entry = waiting.take();
      if (!entry) return;
      running++;
      const run = handler;
      // Started on a microtask: the handler never runs inside enqueue(), and a synchronous
      // throw becomes a rejection like any other.
      Promise.resolve(entry.jobId)
        .then(run)
        .catch((error: unknown) => report(error, entry.jobId))
        .finally(() => {
          running--;
          if (closed) {
            if (running === 0) settled?.();
          } else {
            pump();
          }
        });
    }
  }

  return {
    async enqueue(jobId: string, enqueueOptions: EnqueueOptions = {}): Promise<void> {
      if (closed) throw closedError();
      if (typeof jobId !== 'string' || jobId === '') {
        throw new FileconvError('INVALID_REQUEST', 'A queued job id must be a non-empty string.');
      }
      const priority = enqueueOptions.priority ?? 0;
      if (typeof priority !== 'number' || !Number.isFinite(priority)) {
        throw new FileconvError('INVALID_REQUEST', 'A queue priority must be a finite number.', {
          details: { jobId, priority: String(priority) },
        });
      }
      waiting.push({ jobId, priority, sequence: sequence++ });
      pump();
    },

    process(nextHandler: QueueHandler, processOptions: { concurrency?: number } = {}): void {
      if (typeof nextHandler !== 'function')
        throw invalidOption('queue.process', 'handler', 'a function', nextHandler);
      const given = checkPositiveInteger('queue.process', 'concurrency', processOptions.concurrency, 1);
      if (handler)
        throw new FileconvError('INVALID_STATE', 'queue.process() was already called; call it once.');
      if (closed) throw closedError();
      handler = nextHandler;
      concurrency = given;
      pump();
    },

    close(): Promise<void> {
      closed = true;
      closing ??= new Promise<void>((resolve) => {
        if (running === 0) resolve();
        else settled = resolve;
      });
      return closing;
    },

    async size(): Promise<number> {
      return waiting.size;
    },

    hasHandler(): boolean {
      return handler !== undefined && !closed;
    },
  };
}
