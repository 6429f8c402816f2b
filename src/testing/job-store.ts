/**
 * Conformance suite for JobStore adapters: `testJobStore('my store', () => createMyStore())`.
 * It pins down what the engine's correctness rests on: the optimistic version check (two
 * workers updating from the same version: exactly one wins), listJobs order for recovery and
 * expiry sweeps, and records handed out as copies that cannot change what is stored.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileRecord, Job } from '../core/jobs/types.js';
import type { JobStore } from '../core/ports/index.js';
import { type AdapterFactory, useFreshInstance } from './fresh-instance.js';

/** A complete, valid job record; `overrides` win. */
export function sampleJob(overrides: Partial<Job> = {}): Job {
  return {
    id: `job_${randomUUID()}`,
    version: 1,
    status: 'queued',
    owner: 'account_1',
    fileId: null,
    inputKey: 'uploads/2026/abc123/photo.png',
    outputKey: null,
    sourceFormat: 'png',
    targetFormat: 'webp',
    fileName: 'photo.png',
    outputName: 'photo.webp',
    options: { quality: 80, resize: { width: 640 } },
    path: ['png', 'webp'],
    priority: 0,
    attempts: 0,
    progress: 0,
    error: null,
    cpuMs: null,
    outputSize: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    startedAt: null,
    completedAt: null,
    expiresAt: null,
    ...overrides,
  };
}

/** A complete, valid file record; `overrides` win. */
export function sampleFile(overrides: Partial<FileRecord> = {}): FileRecord {
  return {
    id: `file_${randomUUID()}`,
    version: 1,
    status: 'pending',
    owner: 'ip:203.0.113.7',
    key: 'uploads/2026/abc123/photo.png',
    fileName: 'phötö (1).png',
    size: 1234,
    contentType: 'image/png',
    createdAt: '2026-01-01T00:00:00.000Z',
    uploadedAt: null,
    expiresAt: '2026-01-02T00:00:00.000Z',
    ...overrides,
  };
}

const UNTRUSTED_IDS = ['', '../../etc/passwd', 'a/b', '..', '.hidden', 'x\0y', 'job with spaces'];

export function testJobStore(name: string, factory: AdapterFactory<JobStore>): void {
  describe(`JobStore conformance: ${name}`, () => {
    const store = useFreshInstance(factory);

    describe('file records', () => {
      it('creates and reads a file record field for field', async () => {
        const file = sampleFile();
        await store().createFile(file);
        expect(await store().getFile(file.id)).toEqual(file);
      });

      it('answers null for an unknown or untrusted id', async () => {
        expect(await store().getFile('file_missing')).toBeNull();
        for (const id of UNTRUSTED_IDS) expect(await store().getFile(id)).toBeNull();
      });

      it('refuses to create a file record twice', async () => {
        const file = sampleFile();
        await store().createFile(file);
        await expect(store().createFile({ ...file, size: 1 })).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
        });
        expect((await store().getFile(file.id))?.size).toBe(file.size);
      });

      it('updates only from the stored version', async () => {
        const file = sampleFile();
        await store().createFile(file);
        const uploaded = {
          ...file,
          version: 2,
          status: 'uploaded' as const,
          uploadedAt: '2026-01-01T00:01:00.000Z',
        };
        await store().updateFile(uploaded);
        expect(await store().getFile(file.id)).toEqual(uploaded);
        for (const version of [1, 2, 4]) {
          await expect(store().updateFile({ ...file, version })).rejects.toMatchObject({
            code: 'VERSION_CONFLICT',
          });
        }
        expect(await store().getFile(file.id)).toEqual(uploaded);
      });

      it("keeps a resumable upload's state as given, and drops it when an update leaves it out", async () => {
        const state = { part: 'p-1', parts: [{ n: 1, etag: '"e1"' }], nested: { size: 5242880 } };
        const file = sampleFile({ resumable: { offset: 0, state } });
        await store().createFile(file);
        expect(await store().getFile(file.id)).toEqual(file);
        const moved = {
          ...file,
          version: 2,
          resumable: { offset: 5242880, state: { ...state, part: 'p-2' } },
        };
        await store().updateFile(moved);
        expect(await store().getFile(file.id)).toEqual(moved);
        const { resumable: _done, ...rest } = moved;
        const finished = {
          ...rest,
          version: 3,
          status: 'uploaded' as const,
          uploadedAt: '2026-01-01T00:02:00.000Z',
        };
        await store().updateFile(finished);
        const stored = await store().getFile(file.id);
        expect(stored).toEqual(finished);
        expect(stored).not.toHaveProperty('resumable');
      });

      it('refuses to update a missing file record with NOT_FOUND', async () => {
        await expect(store().updateFile(sampleFile({ version: 2 }))).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
      });

      it('deletes a file record, and deleting a missing one is a no-op', async () => {
        const file = sampleFile();
        await store().createFile(file);
        await store().deleteFile(file.id);
        expect(await store().getFile(file.id)).toBeNull();
        await expect(store().deleteFile(file.id)).resolves.toBeUndefined();
        await expect(store().deleteFile('file_never_was')).resolves.toBeUndefined();
      });

      it('lists files expiring before an instant, soonest first, at most limit', async () => {
        const late = sampleFile({ expiresAt: '2026-01-03T00:00:00.000Z' });
        const soon = sampleFile({ expiresAt: '2026-01-01T00:00:00.000Z' });
        const later = sampleFile({ expiresAt: '2026-01-02T00:00:00.000Z' });
        for (const file of [late, soon, later]) await store().createFile(file);
        const expiring = await store().listFiles({ expiresBefore: '2026-01-02T12:00:00.000Z' });
        expect(expiring.map((file) => file.id)).toEqual([soon.id, later.id]);
        expect(expiring[0]).toEqual(soon);
        const first = await store().listFiles({ expiresBefore: '2026-02-01T00:00:00.000Z', limit: 1 });
        expect(first.map((file) => file.id)).toEqual([soon.id]);
        await expect(store().listFiles({ expiresBefore: 'yesterday' })).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
        });
      });
    });

    describe('jobs', () => {
      it('creates and reads a job field for field', async () => {
        const job = sampleJob({
          fileId: 'file_1',
          options: { nested: { list: [1, 'two', null] }, emoji: '✓' },
        });
        await store().createJob(job);
        expect(await store().getJob(job.id)).toEqual(job);
      });

      it('answers null for an unknown or untrusted id', async () => {
        expect(await store().getJob('job_missing')).toBeNull();
        for (const id of UNTRUSTED_IDS) expect(await store().getJob(id)).toBeNull();
      });

      it('refuses to create a job whose id exists with INVALID_REQUEST, keeping the original', async () => {
        const job = sampleJob();
        await store().createJob(job);
        await expect(store().createJob({ ...job, owner: 'intruder' })).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
        });
        expect((await store().getJob(job.id))?.owner).toBe(job.owner);
      });

      it('applies a chain of updates, each from the version before', async () => {
        const job = sampleJob();
        await store().createJob(job);
        const started = {
          ...job,
          version: 2,
          status: 'processing' as const,
          attempts: 1,
          startedAt: job.createdAt,
        };
        await store().updateJob(started);
        const done = {
          ...started,
          version: 3,
          status: 'completed' as const,
          progress: 1,
          outputKey: 'results/x.webp',
        };
        await store().updateJob(done);
        expect(await store().getJob(job.id)).toEqual(done);
      });

      it('refuses stale, repeated and skipping versions with VERSION_CONFLICT', async () => {
        const job = sampleJob();
        await store().createJob(job);
        await store().updateJob({ ...job, version: 2, progress: 0.5 });
        for (const version of [1, 2, 4]) {
          await expect(store().updateJob({ ...job, version, progress: 0.9 })).rejects.toMatchObject({
            code: 'VERSION_CONFLICT',
          });
        }
        expect(await store().getJob(job.id)).toMatchObject({ version: 2, progress: 0.5 });
      });

      it('lets exactly one of several concurrent updates from the same version win', async () => {
        const job = sampleJob();
        await store().createJob(job);
        const contenders = Array.from({ length: 5 }, (_, index) => ({
          ...job,
          version: 2,
          owner: `worker_${index}`,
        }));
        const results = await Promise.allSettled(contenders.map((next) => store().updateJob(next)));
        const winners = results.flatMap((result, index) =>
          result.status === 'fulfilled' ? [contenders[index]!] : [],
        );
        expect(winners).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'VERSION_CONFLICT' });
        }
        expect(await store().getJob(job.id)).toEqual(winners[0]);
      });

      it('refuses to update a missing job with NOT_FOUND', async () => {
        await expect(store().updateJob(sampleJob({ version: 2 }))).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
      });
    });

    describe('listJobs', () => {
      async function seed(): Promise<Record<string, Job>> {
        const jobs = {
          newest: sampleJob({ id: 'job_e', status: 'queued', createdAt: '2026-03-01T00:00:00.000Z' }),
          oldest: sampleJob({ id: 'job_d', status: 'queued', createdAt: '2026-01-01T00:00:00Z' }),
          tieB: sampleJob({ id: 'job_b', status: 'processing', createdAt: '2026-02-01T00:00:00.000Z' }),
          tieA: sampleJob({ id: 'job_a', status: 'queued', createdAt: '2026-02-01T00:00:00.000Z' }),
          done: sampleJob({ id: 'job_c', status: 'completed', createdAt: '2025-12-01T00:00:00.000Z' }),
        };
        for (const job of Object.values(jobs)) await store().createJob(job);
        return jobs;
      }
      const ids = (jobs: Job[]) => jobs.map((job) => job.id);

      it('filters by status, oldest first, ties by id', async () => {
        await seed();
        expect(ids(await store().listJobs({ status: ['queued', 'processing'] }))).toEqual([
          'job_d',
          'job_a',
          'job_b',
          'job_e',
        ]);
        expect(ids(await store().listJobs({ status: ['completed'] }))).toEqual(['job_c']);
        expect(await store().listJobs({ status: ['failed'] })).toEqual([]);
        expect(await store().listJobs({ status: [] })).toEqual([]);
      });

      it('returns at most limit jobs, the oldest', async () => {
        await seed();
        expect(ids(await store().listJobs({ status: ['queued', 'processing'], limit: 2 }))).toEqual([
          'job_d',
          'job_a',
        ]);
        expect(await store().listJobs({ status: ['queued'], limit: 0 })).toEqual([]);
      });

      it('sees status changes made by updates', async () => {
        const { oldest } = await seed();
        await store().updateJob({ ...oldest!, version: 2, status: 'processing' });
        expect(ids(await store().listJobs({ status: ['queued'] }))).toEqual(['job_a', 'job_e']);
        expect(ids(await store().listJobs({ status: ['processing'] }))).toEqual(['job_d', 'job_b']);
      });

      it('returns complete records', async () => {
        const { tieA } = await seed();
        expect((await store().listJobs({ status: ['queued'] })).find((job) => job.id === 'job_a')).toEqual(
          tieA,
        );
      });
    });

    describe('copies', () => {
      it('is not affected by changes to the record passed in', async () => {
        const job = sampleJob();
        const file = sampleFile();
        await store().createJob(job);
        await store().createFile(file);
        const expectedJob = structuredClone(job);
        job.status = 'failed';
        (job.options.resize as { width: number }).width = 1;
        job.path.push('gif');
        file.size = 0;
        expect(await store().getJob(job.id)).toEqual(expectedJob);
        expect((await store().getFile(file.id))?.size).toBe(1234);
      });

      it('hands out copies from getJob, getFile and listJobs', async () => {
        const job = sampleJob();
        const file = sampleFile();
        await store().createJob(job);
        await store().createFile(file);
        const fromGet = (await store().getJob(job.id))!;
        fromGet.status = 'failed';
        fromGet.path.length = 0;
        (fromGet.options.resize as { width: number }).width = 1;
        const [fromList] = await store().listJobs({ status: ['queued'] });
        fromList!.owner = 'someone else';
        const fileCopy = (await store().getFile(file.id))!;
        fileCopy.status = 'uploaded';
        expect(await store().getJob(job.id)).toEqual(job);
        expect(await store().getFile(file.id)).toEqual(file);
      });
    });
  });
}
