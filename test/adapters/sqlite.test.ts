/**
 * The embedded SQLite database and its four stores: each store passes its port's conformance
 * suite (on a database of its own, and on one shared with the others), records survive a close
 * and reopen, and a file that is not a database, is damaged, or comes from a newer fileconv is
 * refused with a message naming it, with nothing written to it.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createSqliteCounterStore } from '../../src/adapters/counters/sqlite.js';
import { createSqliteJobStore } from '../../src/adapters/jobs/sqlite.js';
import { createSqliteKeyStore } from '../../src/adapters/keys/sqlite.js';
import { createSqliteOutbox } from '../../src/adapters/outbox/sqlite.js';
import { openSqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { SCHEMA_VERSION } from '../../src/adapters/sqlite/schema.js';
import {
  sampleApiKeyRecord,
  sampleDelivery,
  sampleFile,
  sampleJob,
  testCounterStore,
  testJobStore,
  testKeyStore,
  testWebhookOutbox,
} from '../../src/testing/index.js';
import { listFiles, makeTempDir } from './tmp-dirs.js';

/** A store on a database file of its own, removed after the test. */
function ownFile<T>(create: (options: { path: string }) => T) {
  return async () => {
    const { dir, remove } = await makeTempDir('sqlite');
    return { adapter: create({ path: path.join(dir, 'fileconv.db') }), cleanup: remove };
  };
}

testJobStore('sqlite', ownFile(createSqliteJobStore));
testKeyStore('sqlite', ownFile(createSqliteKeyStore));
testCounterStore('sqlite', ownFile(createSqliteCounterStore));
testWebhookOutbox('sqlite', ownFile(createSqliteOutbox));

describe('the stores sharing one database', () => {
  // As `fileconv serve` uses them: one file, one opened database, four stores.
  testJobStore('sqlite (shared database)', async () => {
    const { dir, remove } = await makeTempDir('sqlite-shared');
    const database = await openSqliteDatabase(path.join(dir, 'fileconv.db'));
    const counters = createSqliteCounterStore({ database });
    await counters.increment('k', 1, Date.now() + 60_000);
    return {
      adapter: createSqliteJobStore({ database }),
      cleanup: async () => {
        await counters.close();
        database.close();
        await remove();
      },
    };
  });
});

describe('group commit of job and upload creations', () => {
  it('answers each creation once on disk, with one WAL sync for all the creations waiting together', async () => {
    const { dir, remove } = await makeTempDir('sqlite-group-commit');
    const file = path.join(dir, 'fileconv.db');
    const database = await openSqliteDatabase(file);
    const jobs = createSqliteJobStore({ database });
    // The class of the descriptors fs/promises hands out, whose datasync the group commit calls.
    const probe = await open(file, 'r');
    const handleClass = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const datasync = vi.spyOn(handleClass, 'datasync');
    try {
      const created = Array.from({ length: 20 }, () => sampleJob());
      await Promise.all([
        ...created.map((job) => jobs.createJob(job)),
        ...created.map(() => jobs.createFile(sampleFile())),
      ]);
      // 40 creations, not 40 fsyncs: the first sync, and the one after it that the others share.
      expect(datasync.mock.calls.length).toBeGreaterThan(0);
      expect(datasync.mock.calls.length).toBeLessThanOrEqual(2);
      // Committed: another connection (another process, after a crash) reads every one.
      const reader = new Database(file, { readonly: true });
      try {
        expect(reader.prepare('SELECT count(*) FROM jobs').pluck().get()).toBe(20);
        expect(reader.prepare('SELECT count(*) FROM files').pluck().get()).toBe(20);
      } finally {
        reader.close();
      }
      // A creation after the others waits for a sync of its own.
      await jobs.createJob(sampleJob());
      expect(datasync.mock.calls.length).toBeLessThanOrEqual(3);
    } finally {
      datasync.mockRestore();
      await jobs.close();
      database.close();
      await remove();
    }
    await expect(database.synced()).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });
});

describe('openSqliteDatabase', () => {
  it('keeps every kind of record across a close and reopen', async () => {
    const { dir, remove } = await makeTempDir('sqlite-reopen');
    const file = path.join(dir, 'fileconv.db');
    try {
      const job = sampleJob();
      const upload = sampleFile();
      const key = sampleApiKeyRecord();
      const delivery = sampleDelivery({ dueAt: 5 });
      const expiresAt = Date.now() + 60_000;
      {
        const database = await openSqliteDatabase(file);
        await createSqliteJobStore({ database }).createJob(job);
        await createSqliteJobStore({ database }).createFile(upload);
        await createSqliteKeyStore({ database }).create(key);
        await createSqliteCounterStore({ database }).increment('quota:day:ip:1', 5, expiresAt);
        await createSqliteOutbox({ database }).add(delivery);
        database.close();
      }
      const database = await openSqliteDatabase(file);
      try {
        expect(await createSqliteJobStore({ database }).getJob(job.id)).toEqual(job);
        expect(await createSqliteJobStore({ database }).getFile(upload.id)).toEqual(upload);
        expect(await createSqliteKeyStore({ database }).findByHash(key.hash)).toEqual(key);
        expect(await createSqliteCounterStore({ database }).get('quota:day:ip:1')).toBe(5);
        expect(await createSqliteOutbox({ database }).claimDue(10, 1000, 5)).toEqual([
          { ...delivery, dueAt: 1010 },
        ]);
      } finally {
        database.close();
      }
    } finally {
      await remove();
    }
  });

  it('sweeps expired counters, so one-off clients do not grow the table', async () => {
    const { dir, remove } = await makeTempDir('sqlite-sweep');
    const database = await openSqliteDatabase(path.join(dir, 'fileconv.db'));
    const counters = createSqliteCounterStore({ database });
    try {
      for (let index = 0; index < 50; index++)
        await counters.increment(`rate:ip:${index}`, 1, Date.now() - 1);
      await counters.increment('rate:ip:live', 1, Date.now() + 60_000);
      expect(await counters.sweep()).toBe(50);
      expect(database.durable.prepare('SELECT count(*) FROM counters').pluck().get()).toBe(1);
    } finally {
      await counters.close();
      database.close();
      await remove();
    }
  });

  /** A file given to openSqliteDatabase that must be refused and left exactly as it was. */
  async function expectRefused(bytes: Buffer, message: RegExp) {
    const { dir, remove } = await makeTempDir('sqlite-bad');
    const file = path.join(dir, 'fileconv.db');
    try {
      await writeFile(file, bytes);
      const error = await openSqliteDatabase(file).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'INTERNAL' });
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(file);
      expect(await readFile(file)).toEqual(bytes);
      expect(await listFiles(dir)).toEqual(['fileconv.db']);
    } finally {
      await remove();
    }
  }

  /** The bytes of a valid database with one job in it, written by this version. */
  async function validDatabaseBytes(): Promise<Buffer> {
    const { dir, remove } = await makeTempDir('sqlite-valid');
    const file = path.join(dir, 'fileconv.db');
    const database = await openSqliteDatabase(file);
    const jobs = createSqliteJobStore({ database });
    for (let index = 0; index < 200; index++) await jobs.createJob(sampleJob());
    database.durable.pragma('wal_checkpoint(TRUNCATE)');
    database.close();
    const bytes = await readFile(file);
    await remove();
    return bytes;
  }

  it('refuses a file that is not a database, naming it, and writes nothing', async () => {
    await expectRefused(randomBytes(8192), /is not a SQLite database.*Restore it from a backup/);
    await expectRefused(Buffer.from('{"jobs": []}\n'), /is not a SQLite database/);
  });

  it('refuses a truncated database as damaged, and writes nothing', async () => {
    const bytes = await validDatabaseBytes();
    expect(bytes.length).toBeGreaterThan(16_384);
    await expectRefused(bytes.subarray(0, Math.floor(bytes.length / 2)), /is damaged/);
  });

  it('refuses a database from a newer fileconv, and writes nothing', async () => {
    const bytes = Buffer.from(await validDatabaseBytes());
    // user_version is the big-endian integer at offset 60 of the header.
    bytes.writeUInt32BE(SCHEMA_VERSION + 1, 60);
    await expectRefused(bytes, /made by a newer fileconv \(schema version \d+; this one knows up to \d+\)/);
  });

  it('migrates a new file to the current schema in one go', async () => {
    const { dir, remove } = await makeTempDir('sqlite-new');
    const file = path.join(dir, 'nested', 'fileconv.db');
    const database = await openSqliteDatabase(file);
    try {
      expect(database.durable.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(database.durable.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.durable.pragma('synchronous', { simple: true })).toBe(2); // FULL
      expect(database.fast.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect((await stat(file)).isFile()).toBe(true);
    } finally {
      database.close();
      await remove();
    }
  });
});
