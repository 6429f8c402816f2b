/**
 * Data dirs from fileconv before the embedded database kept jobs and uploads as JSON files
 * (`jobs/`) and API keys in `keys/api-keys.json`. On the first start with the database, those
 * records are copied into it (keys above all: losing them would lock every customer out), and the
 * old directories are renamed `*.imported` so it happens once. A crash half-way just imports
 * again: records already in the database are left as they are.
 *
 * Deprecated in 0.2.0, removed in 0.3.0 (with the fs job and key stores it reads): a data dir
 * from before the embedded database must be started once with a 0.2.x release to be imported.
 */
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createFsJobStore } from '../adapters/jobs/fs.js';
import { instantMs } from '../adapters/jobs/record-rules.js';
import { createFsKeyStore } from '../adapters/keys/fs.js';
import type { SqliteDatabase } from '../adapters/sqlite/database.js';
import { JOB_STATUSES } from '../core/jobs/types.js';

export interface ImportReport {
  jobs: number;
  files: number;
  keys: number;
}

/**
 * @deprecated Removed in 0.3.0: start a 0.2.x `fileconv serve` once on an old data dir to import it.
 */
export async function importLegacyStores(dataDir: string, database: SqliteDatabase): Promise<ImportReport> {
  const report: ImportReport = { jobs: 0, files: 0, keys: 0 };
  const db = database.durable;
  const jobsDir = join(dataDir, 'jobs');
  if (existsSync(jobsDir)) {
    const legacy = createFsJobStore({ dir: jobsDir });
    const jobs = await legacy.listJobs({ status: JOB_STATUSES });
    const files = await legacy.listFiles({ expiresBefore: '9999-12-31T23:59:59.999Z' });
    const insertJob = db.prepare(
      'INSERT OR IGNORE INTO jobs (id, version, status, created_at, record) VALUES (?, ?, ?, ?, ?)',
    );
    const insertFile = db.prepare(
      'INSERT OR IGNORE INTO files (id, version, expires_at, record) VALUES (?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const job of jobs) {
        report.jobs += insertJob.run(
          job.id,
          job.version,
          job.status,
          instantMs(job.createdAt),
          JSON.stringify(job),
        ).changes;
      }
      for (const file of files) {
        report.files += insertFile.run(
          file.id,
          file.version,
          instantMs(file.expiresAt),
          JSON.stringify(file),
        ).changes;
      }
    })();
    await setAside(jobsDir);
  }
  const keysDir = join(dataDir, 'keys');
  if (existsSync(keysDir)) {
    const records = await createFsKeyStore({ dir: keysDir }).list();
    const insertKey = db.prepare(
      'INSERT OR IGNORE INTO api_keys (id, hash, account_id, created_at, record) VALUES (?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const record of records) {
        report.keys += insertKey.run(
          record.id,
          record.hash,
          record.accountId,
          instantMs(record.createdAt),
          JSON.stringify(record),
        ).changes;
      }
    })();
    await setAside(keysDir);
  }
  return report;
}

/** Renames an imported directory to `<name>.imported` (with a time stamp if that is taken). */
async function setAside(dir: string): Promise<void> {
  const target = existsSync(`${dir}.imported`) ? `${dir}.imported-${Date.now()}` : `${dir}.imported`;
  await rename(dir, target);
}
