import { describe, expect, it, vi } from 'vitest';
import type { JobLifecycleEvent } from '../../src/index.js';
import { createTextJob, startEngine } from './setup.js';

/** The types of the events of one job, in the order they came. */
function typesOf(events: readonly JobLifecycleEvent[], jobId: string): string[] {
  return events.filter((event) => event.job.id === jobId).map((event) => event.type);
}

describe('job events', () => {
  it('created, started, progress, completed, in order, each with the saved record', async () => {
    const engine = await startEngine();
    const events: JobLifecycleEvent[] = [];
    engine.onJobEvent((event) => {
      events.push(event);
    });
    await engine.start();
    const job = await createTextJob(engine, 'md');
    const done = await engine.waitForJob(job.id);
    expect(done.status).toBe('completed');
    expect(events.map((event) => event.type)).toEqual(['created', 'started', 'progress', 'completed']);
    expect(events.every((event) => event.job.id === job.id)).toBe(true);
    expect(events[0]!.job.status).toBe('queued');
    expect(events[2]!.job.progress).toBe(0.5);
    expect(events[3]!.job).toEqual(done);
    // Versions only grow: each event carries the record as it was saved at that step.
    const versions = events.map((event) => event.job.version);
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
  });

  it('failed carries the job error', async () => {
    const engine = await startEngine();
    const events: JobLifecycleEvent[] = [];
    engine.onJobEvent((event) => {
      events.push(event);
    });
    await engine.start();
    const job = await createTextJob(engine, 'html');
    await engine.waitForJob(job.id);
    expect(events.map((event) => event.type)).toEqual(['created', 'started', 'failed']);
    expect(events[2]!.job.error).toMatchObject({ code: 'CONVERSION_FAILED' });
  });

  it('canceled is emitted where the cancel happens; expired when a result is discarded', async () => {
    const engine = await startEngine();
    const events: JobLifecycleEvent[] = [];
    engine.onJobEvent((event) => {
      events.push(event);
    });
    // Not started: the job stays queued until it is canceled.
    const job = await createTextJob(engine, 'md');
    await engine.cancelJob(job.id, job.owner);
    expect(typesOf(events, job.id)).toEqual(['created', 'canceled']);
    expect(events.at(-1)!.job.status).toBe('canceled');

    await engine.start();
    const second = await createTextJob(engine, 'md');
    await engine.waitForJob(second.id);
    await engine.discardJob(second.id, second.owner);
    expect(typesOf(events, second.id)).toEqual(['created', 'started', 'progress', 'completed', 'expired']);
  });

  it('a throwing listener goes to onError and breaks neither the job nor other listeners', async () => {
    const onError = vi.fn();
    const engine = await startEngine({ onError });
    const seen: string[] = [];
    engine.onJobEvent(() => {
      throw new Error('listener bug');
    });
    engine.onJobEvent(async () => {
      throw new Error('async listener bug');
    });
    engine.onJobEvent((event) => {
      seen.push(event.type);
    });
    await engine.start();
    const job = await createTextJob(engine, 'md');
    expect((await engine.waitForJob(job.id)).status).toBe('completed');
    expect(seen).toEqual(['created', 'started', 'progress', 'completed']);
    await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(8));
    expect(onError.mock.calls.every(([, context]) => context === 'jobEvent')).toBe(true);
  });

  it('unsubscribe stops the listener', async () => {
    const engine = await startEngine();
    const seen: string[] = [];
    const off = engine.onJobEvent((event) => {
      seen.push(event.type);
    });
    const job = await createTextJob(engine, 'md');
    off();
    await engine.cancelJob(job.id);
    expect(seen).toEqual(['created']);
  });
});
