/**
 * A data dir written by a fileconv from before the embedded database (jobs and uploads as JSON
 * files, keys in keys/api-keys.json) keeps its records: the first open imports them and sets
 * the old directories aside, so it happens once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFsJobStore } from '../src/adapters/jobs/fs.js';
import { createSqliteJobStore } from '../src/adapters/jobs/sqlite.js';
import { createFsKeyStore } from '../src/adapters/keys/fs.js';
import { createSqliteKeyStore } from '../src/adapters/keys/sqlite.js';
import { openDataDirDatabase } from '../src/preset/backends.js';
import { sampleApiKeyRecord, sampleFile, sampleJob } from '../src/testing/index.js';
import { tempDir } from './helpers/temp.js';

describe('a data dir from before the embedded database', () => {
  it('has its jobs, uploads and API keys imported once, and the old stores set aside', async () => {
    const data = await tempDir();
    const oldJobs = createFsJobStore({ dir: join(data, 'jobs') });
    const jobs = [sampleJob({ status: 'completed' }), sampleJob({ status: 'queued' })];
    const file = sampleFile();
    for (const job of jobs) await oldJobs.createJob(job);
    await oldJobs.createFile(file);
    const oldKeys = createFsKeyStore({ dir: join(data, 'keys') });
    const key = sampleApiKeyRecord();
    const revoked = sampleApiKeyRecord({ revokedAt: '2026-02-01T00:00:00.000Z' });
    await oldKeys.create(key);
    await oldKeys.create(revoked);

    const database = await openDataDirDatabase(data);
    try {
      const store = createSqliteJobStore({ database });
      for (const job of jobs) expect(await store.getJob(job.id)).toEqual(job);
      expect(await store.getFile(file.id)).toEqual(file);
      expect(await store.listJobs({ status: ['queued'] })).toEqual([jobs[1]]);
      const keys = createSqliteKeyStore({ database });
      expect(await keys.findByHash(key.hash)).toEqual(key);
      expect(await keys.findByHash(revoked.hash)).toEqual(revoked);
    } finally {
      database.close();
    }
    expect([existsSync(join(data, 'jobs')), existsSync(join(data, 'jobs.imported'))]).toEqual([false, true]);
    expect([existsSync(join(data, 'keys')), existsSync(join(data, 'keys.imported'))]).toEqual([false, true]);
    // Opening again finds nothing to import and keeps the records.
    const again = await openDataDirDatabase(data);
    try {
      expect(await createSqliteKeyStore({ database: again }).list()).toHaveLength(2);
    } finally {
      again.close();
    }
  });
});
