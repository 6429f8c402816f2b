/**
 * Conformance suite for Queue adapters: `testQueue('my queue', () => createMyQueue())`. The
 * factory must return a queue that is empty and not yet processing. The suite pins down the
 * delivery rules the engine schedules by: priority order, first in first out within a
 * priority, the concurrency cap, delivery that survives failing handlers, a close() that
 * waits for running handlers, and (for an in-process queue) whether a handler takes its ids.
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../core/ports/index.js';
import { type AdapterFactory, deferred, useFreshInstance, waitUntil } from './fresh-instance.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function testQueue(name: string, factory: AdapterFactory<Queue>): void {
  describe(`Queue conformance: ${name}`, () => {
    const queue = useFreshInstance(factory);

    /** Starts processing with a handler that records delivered ids; returns them. */
    function collect(options?: { concurrency?: number }, work?: (jobId: string) => Promise<void>): string[] {
      const delivered: string[] = [];
      queue().process(async (jobId) => {
        delivered.push(jobId);
        await work?.(jobId);
      }, options);
      return delivered;
    }

    it('delivers every enqueued id', async () => {
      const ids = Array.from({ length: 10 }, (_, index) => `job_${index}`);
      for (const id of ids) await queue().enqueue(id);
      const delivered = collect({ concurrency: 3 });
      await waitUntil(() => delivered.length >= ids.length, 10_000, 'all ids');
      expect([...delivered].sort()).toEqual([...ids].sort());
    });

    it('delivers new jobs (firstTime) in priority order, mixed with repeats', async () => {
      await queue().enqueue('first_low', { priority: 0, firstTime: true });
      await queue().enqueue('first_high', { priority: 10, firstTime: true });
      await queue().enqueue('repeat_mid', { priority: 5 });
      const delivered = collect({ concurrency: 1 });
      await waitUntil(() => delivered.length >= 3, 10_000, 'all ids');
      expect(delivered).toEqual(['first_high', 'repeat_mid', 'first_low']);
    });

    it('delivers ids enqueued after processing started', async () => {
      const delivered = collect();
      await queue().enqueue('job_late_1');
      await sleep(20);
      await queue().enqueue('job_late_2');
      await waitUntil(() => delivered.length >= 2, 10_000, 'both ids');
      expect(delivered).toEqual(['job_late_1', 'job_late_2']);
    });

    it('delivers higher priorities first, first in first out within a priority', async () => {
      const plan: [string, number | undefined][] = [
        ['low_1', -1],
        ['default_1', undefined],
        ['high_1', 10],
        ['mid_1', 5],
        ['high_2', 10],
        ['default_2', 0],
        ['mid_2', 5],
        ['low_2', -1],
        ['high_3', 10],
      ];
      for (const [id, priority] of plan)
        await queue().enqueue(id, priority === undefined ? {} : { priority });
      const delivered = collect({ concurrency: 1 });
      await waitUntil(() => delivered.length >= plan.length, 10_000, 'all ids');
      expect(delivered).toEqual([
        'high_1',
        'high_2',
        'high_3',
        'mid_1',
        'mid_2',
        'default_1',
        'default_2',
        'low_1',
        'low_2',
      ]);
    });

    it('keeps insertion order for many ids of one priority', async () => {
      const ids = Array.from({ length: 50 }, (_, index) => `fifo_${String(index).padStart(2, '0')}`);
      for (const id of ids) await queue().enqueue(id, { priority: 3 });
      const delivered = collect();
      await waitUntil(() => delivered.length >= ids.length, 10_000, 'all ids');
      expect(delivered).toEqual(ids);
    });

    for (const concurrency of [1, 3]) {
      it(`never runs more than ${concurrency} handler(s) at once`, async () => {
        let inFlight = 0;
        let maxInFlight = 0;
        let finished = 0;
        const total = 12;
        for (let index = 0; index < total; index++) await queue().enqueue(`job_${index}`);
        queue().process(
          async () => {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            await sleep(15);
            inFlight--;
            finished++;
          },
          concurrency === 1 ? undefined : { concurrency },
        );
        await waitUntil(() => finished >= total, 10_000, 'all handlers');
        expect(maxInFlight).toBeLessThanOrEqual(concurrency);
        // A queue that ignored the setting and ran one at a time would not be conformant either.
        if (concurrency > 1) expect(maxInFlight).toBeGreaterThan(1);
      });
    }

    it('goes on delivering after handlers throw or reject', async () => {
      await queue().enqueue('throws');
      await queue().enqueue('rejects');
      await queue().enqueue('fine');
      const delivered: string[] = [];
      queue().process((jobId) => {
        delivered.push(jobId);
        if (jobId === 'throws') throw new Error('synchronous failure');
        if (jobId === 'rejects') return Promise.reject(new Error('asynchronous failure'));
        return Promise.resolve();
      });
      await waitUntil(() => delivered.includes('fine'), 10_000, 'the id after the failures');
      await queue().enqueue('after');
      await waitUntil(() => delivered.includes('after'), 10_000, 'an id enqueued after the failures');
    });

    it('close() waits for running handlers to settle', async () => {
      const release = deferred();
      const started = deferred();
      let finished = false;
      await queue().enqueue('slow');
      queue().process(async () => {
        started.resolve();
        await release.promise;
        await sleep(10);
        finished = true;
      });
      await started.promise;
      let closed = false;
      const closing = queue()
        .close()
        .then(() => {
          closed = true;
        });
      try {
        await sleep(30);
        expect(closed).toBe(false);
      } finally {
        release.resolve(); // also on failure, so the after-test close() cannot hang
      }
      await closing;
      expect(finished).toBe(true);
    });

    it('close() resolves at once when nothing runs, and may be called again', async () => {
      collect();
      await queue().close();
      await queue().close();
    });

    it('refuses enqueue after close()', async () => {
      await queue().close();
      await expect(queue().enqueue('too_late')).rejects.toThrow();
    });

    it('refuses a second process() call', () => {
      collect();
      expect(() => queue().process(async () => {})).toThrow();
    });

    it('size() counts ids waiting, not running', async ({ skip }) => {
      const adapter = queue();
      if (!adapter.size) return skip('the queue has no size()');
      for (const id of ['a', 'b', 'c']) await adapter.enqueue(id);
      expect(await adapter.size()).toBe(3);
      const release = deferred();
      const delivered = collect({ concurrency: 1 }, () => release.promise);
      try {
        await waitUntil(() => delivered.length >= 1, 10_000, 'the first id');
        await sleep(20);
        expect(delivered).toHaveLength(1);
        expect(await adapter.size()).toBe(2);
      } finally {
        release.resolve();
      }
      await waitUntil(() => delivered.length === 3, 10_000, 'all ids');
      await waitUntil(async () => (await adapter.size!()) === 0, 10_000, 'an empty queue');
    });

    it('hasHandler() is true from process() until close() (in-process queues only)', async ({ skip }) => {
      const adapter = queue();
      if (!adapter.hasHandler) return skip('a shared queue: no hasHandler()');
      expect(adapter.hasHandler()).toBe(false);
      collect();
      expect(adapter.hasHandler()).toBe(true);
      await adapter.close();
      expect(adapter.hasHandler()).toBe(false);
    });
  });
}
