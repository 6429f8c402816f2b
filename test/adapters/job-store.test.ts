import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFsJobStore, type FsJobStoreWarning } from '../../src/adapters/jobs/fs.js';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { sampleFile, sampleJob, testJobStore } from '../../src/testing/index.js';
import { listFiles, makeTempDir } from './tmp-dirs.js';

testJobStore('memory', () => createMemoryJobStore());

testJobStore('fs', async () => {
  const { dir, remove } = await makeTempDir('jobs');
  return { adapter: createFsJobStore({ dir }), cleanup: remove };
});

describe.each([
  ['memory', async () => ({ store: createMemoryJobStore(), remove: async () => {} })],
  [
    'fs',
    async () => {
      const { dir, remove } = await makeTempDir('jobs-ids');
      return { store: createFsJobStore({ dir }), remove };
    },
  ],
])('%s job store ids', (_name, make) => {
  it('refuses records whose id could not be a file name, on create and update', async () => {
    const { store, remove } = await make();
    try {
      for (const id of ['', '../escape', 'a/b', '.hidden', 'x\0y', 'x'.repeat(201)]) {
        await expect(store.createJob(sampleJob({ id }))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        await expect(store.updateFile(sampleFile({ id, version: 2 }))).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
        });
      }
      await expect(store.createJob(sampleJob({ version: 1.5 }))).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
    } finally {
      await remove();
    }
  });

  it('refuses a malformed listJobs filter', async () => {
    const { store, remove } = await make();
    try {
      await expect(store.listJobs({ status: ['nope' as never] })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      await expect(store.listJobs({ status: ['queued'], limit: -1 })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      await expect(store.listJobs({} as never)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    } finally {
      await remove();
    }
  });
});

describe('createFsJobStore', () => {
  let dir: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir('jobs-fs'));
  });
  afterEach(() => remove());

  it('validates options naming the option, expected and given', () => {
    expect(() => createFsJobStore({ dir: 42 as never })).toThrow(
      /option "dir" must be a non-empty string, got 42/,
    );
    expect(() => createFsJobStore({ dir, fsync: 1 as never })).toThrow(/option "fsync" must be a boolean/);
    expect(() => createFsJobStore({ dir, onWarning: 'log' as never })).toThrow(
      /option "onWarning" must be a function/,
    );
  });

  it('keeps one JSON file per record and no temp files', async () => {
    const store = createFsJobStore({ dir, fsync: false });
    const job = sampleJob({ id: 'job_1' });
    await store.createJob(job);
    await store.updateJob({ ...job, version: 2, status: 'processing' });
    await store.createFile(sampleFile({ id: 'file_1' }));
    expect(await listFiles(dir)).toEqual(['files/file_1.json', 'jobs/job_1.json']);
  });

  it('lets a second instance on the same dir see and update the records', async () => {
    const job = sampleJob({ id: 'job_restart' });
    const file = sampleFile({ id: 'file_restart' });
    const before = createFsJobStore({ dir });
    await before.createJob(job);
    await before.createFile(file);
    await before.updateJob({ ...job, version: 2, status: 'processing', attempts: 1 });

    const after = createFsJobStore({ dir });
    expect(await after.getJob(job.id)).toMatchObject({ version: 2, status: 'processing', attempts: 1 });
    expect(await after.getFile(file.id)).toEqual(file);
    expect((await after.listJobs({ status: ['processing'] })).map((found) => found.id)).toEqual([job.id]);
    await expect(after.updateJob({ ...job, version: 2 })).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    await after.updateJob({ ...job, version: 3, status: 'queued' });
    await expect(after.createJob(job)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('skips a corrupt record in listJobs and reports it through onWarning', async () => {
    const warnings: FsJobStoreWarning[] = [];
    const store = createFsJobStore({ dir, onWarning: (warning) => warnings.push(warning) });
    await store.createJob(sampleJob({ id: 'job_good' }));
    await writeFile(path.join(dir, 'jobs', 'job_bad.json'), '{"id": "job_bad", "vers');
    await writeFile(path.join(dir, 'jobs', 'job_empty.json'), '');
    await writeFile(path.join(dir, 'jobs', '.job_x.123.tmp'), 'half written');

    const listed = await store.listJobs({ status: ['queued'] });
    expect(listed.map((job) => job.id)).toEqual(['job_good']);
    expect(warnings.map((warning) => path.basename(warning.path)).sort()).toEqual([
      'job_bad.json',
      'job_empty.json',
    ]);
    await expect(store.getJob('job_bad')).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('keeps listing when the onWarning hook itself throws', async () => {
    const onWarning = vi.fn(() => {
      throw new Error('hook failed');
    });
    const store = createFsJobStore({ dir, onWarning });
    await store.createJob(sampleJob({ id: 'job_ok' }));
    await writeFile(path.join(dir, 'jobs', 'job_bad.json'), 'not json');
    expect((await store.listJobs({ status: ['queued'] })).map((job) => job.id)).toEqual(['job_ok']);
    expect(onWarning).toHaveBeenCalledOnce();
  });

  it('serialises many concurrent updates of one record without losing or tearing any', async () => {
    const store = createFsJobStore({ dir, fsync: false });
    const job = sampleJob({ id: 'job_hot' });
    await store.createJob(job);
    // Each round, every contender tries to move from the version it read: exactly one may win.
    for (let round = 0; round < 10; round++) {
      const current = (await store.getJob(job.id))!;
      const results = await Promise.allSettled(
        [1, 2, 3].map((worker) =>
          store.updateJob({ ...current, version: current.version + 1, owner: `w${worker}` }),
        ),
      );
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    }
    expect((await store.getJob(job.id))?.version).toBe(11);
    expect(await readdir(path.join(dir, 'jobs'))).toEqual(['job_hot.json']);
  });

  it('answers null and [] before anything was written', async () => {
    const store = createFsJobStore({ dir: path.join(dir, 'not-yet') });
    expect(await store.getJob('job_1')).toBeNull();
    expect(await store.listJobs({ status: ['queued'] })).toEqual([]);
    await store.deleteFile('file_1');
  });
});
