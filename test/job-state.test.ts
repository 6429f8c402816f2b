import { describe, expect, it } from 'vitest';
import { isFileconvError } from '../src/core/errors.js';
import { canTransition, type JobEvent, transition } from '../src/core/jobs/state.js';
import { JOB_STATUSES, type Job, type JobStatus } from '../src/core/jobs/types.js';

const NOW = '2026-11-22T00:00:00.000Z';

function job(status: JobStatus): Job {
  return {
    id: 'job1',
    version: 3,
    status,
    owner: 'ip:127.0.0.1',
    fileId: 'file1',
    inputKey: 'files/file1',
    outputKey: null,
    sourceFormat: 'png',
    targetFormat: 'webp',
    fileName: 'a.png',
    outputName: 'a.webp',
    options: {},
    path: ['png', 'webp'],
    priority: 0,
    attempts: 0,
    progress: 0,
    error: null,
    cpuMs: null,
    outputSize: null,
    createdAt: NOW,
    startedAt: null,
    completedAt: null,
    expiresAt: null,
  };
}

const EVENTS: Record<JobEvent['type'], JobEvent> = {
  start: { type: 'start' },
  progress: { type: 'progress', progress: 0.5 },
  complete: { type: 'complete', outputKey: 'results/job1', outputSize: 10, cpuMs: 12, expiresAt: NOW },
  fail: { type: 'fail', error: { code: 'CORRUPT_INPUT', message: 'bad' } },
  cancel: { type: 'cancel' },
  expire: { type: 'expire' },
  requeue: { type: 'requeue' },
};

/** The whole table: [event, from-state, to-state]; every pair not listed must be refused. */
const LEGAL: [JobEvent['type'], JobStatus, JobStatus][] = [
  ['start', 'queued', 'processing'],
  ['progress', 'processing', 'processing'],
  ['complete', 'processing', 'completed'],
  ['fail', 'queued', 'failed'],
  ['fail', 'processing', 'failed'],
  ['cancel', 'queued', 'canceled'],
  ['cancel', 'processing', 'canceled'],
  ['expire', 'completed', 'expired'],
  ['requeue', 'processing', 'queued'],
];

describe('job state machine', () => {
  for (const [type, event] of Object.entries(EVENTS)) {
    for (const status of JOB_STATUSES) {
      const legal = LEGAL.find(([e, from]) => e === type && from === status);
      if (legal) {
        it(`${type}: ${status} -> ${legal[2]}`, () => {
          const before = job(status);
          const after = transition(before, event, NOW);
          expect(after.status).toBe(legal[2]);
          expect(after.version).toBe(before.version + 1);
          expect(before.status).toBe(status); // pure: the input is untouched
          expect(canTransition(status, event.type)).toBe(true);
        });
      } else {
        it(`${type}: refused from ${status}`, () => {
          expect(canTransition(status, event.type)).toBe(false);
          try {
            transition(job(status), event, NOW);
            expect.unreachable();
          } catch (error) {
            expect(isFileconvError(error, 'INVALID_STATE')).toBe(true);
          }
        });
      }
    }
  }

  it('records what each event carries', () => {
    const started = transition(job('queued'), EVENTS.start, NOW);
    expect(started).toMatchObject({ attempts: 1, startedAt: NOW, progress: 0 });
    const completed = transition(started, EVENTS.complete, NOW);
    expect(completed).toMatchObject({
      outputKey: 'results/job1',
      outputSize: 10,
      cpuMs: 12,
      completedAt: NOW,
      progress: 1,
    });
    expect(transition(completed, EVENTS.expire, NOW)).toMatchObject({ outputKey: null, status: 'expired' });
    const failed = transition(started, EVENTS.fail, NOW);
    expect(failed.error).toEqual({ code: 'CORRUPT_INPUT', message: 'bad' });
    expect(transition(started, EVENTS.cancel, NOW).error?.code).toBe('CANCELED');
    expect(transition(started, EVENTS.requeue, NOW)).toMatchObject({
      status: 'queued',
      startedAt: null,
      attempts: 1,
    });
  });

  it('never lets progress go backwards or past 1', () => {
    const started = transition(job('queued'), EVENTS.start, NOW);
    const half = transition(started, { type: 'progress', progress: 0.5 }, NOW);
    expect(transition(half, { type: 'progress', progress: 0.2 }, NOW).progress).toBe(0.5);
    expect(transition(half, { type: 'progress', progress: 7 }, NOW).progress).toBe(1);
  });
});
