/**
 * Job creations in the embedded database, 2 at a time, as `fileconv serve` makes them: the job
 * store's group commit (committed on the fast connection, then one fdatasync of the WAL off the
 * event loop for every creation waiting at once) against the same inserts committed with
 * synchronous=FULL on the event loop, one fsync each (what the store did before issue 28).
 * Both are on disk before they resolve. Besides the rate, the event loop's busy time per creation:
 * what every other request of the server waits behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSqliteJobStore } from '../src/adapters/jobs/sqlite.js';
import { openSqliteDatabase } from '../src/adapters/sqlite/database.js';
import type { Job } from '../src/core/jobs/types.js';
import { sampleJob } from '../src/testing/index.js';
import { compare } from './stats.js';

const CREATIONS = Number(process.env.BENCH_JOB_STORE_CREATIONS ?? 300);
const CLIENTS = 2;

async function twoAtATime(create: (job: Job) => Promise<unknown>): Promise<void> {
  let made = 0;
  const client = async () => {
    while (made < CREATIONS) {
      made++;
      await create(sampleJob());
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
}

export async function benchJobStoreWrites(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-job-store-'));
  const database = await openSqliteDatabase(join(dir, 'fileconv.db'));
  const jobs = createSqliteJobStore({ database });
  // The insert the store made before, on the synchronous=FULL connection.
  const insert = database.durable.prepare(
    'INSERT INTO jobs (id, version, status, created_at, record) VALUES (?, ?, ?, ?, ?)',
  );
  const fsyncEach = async (job: Job) => {
    insert.run(job.id, job.version, job.status, Date.parse(job.createdAt), JSON.stringify(job));
  };
  const busy = { fsyncEach: [] as number[], groupCommit: [] as number[] };
  const measured = (name: keyof typeof busy, create: (job: Job) => Promise<unknown>) => async () => {
    const before = performance.eventLoopUtilization();
    await twoAtATime(create);
    busy[name].push(performance.eventLoopUtilization(before).active / CREATIONS);
  };
  try {
    const result = await compare(
      rounds,
      measured('fsyncEach', fsyncEach),
      measured('groupCommit', (job) => jobs.createJob(job)),
    );
    const rate = (ms: number) => (CREATIONS / (ms / 1000)).toFixed(0).padStart(6);
    const loop = (values: number[]) =>
      (values.slice(1).reduce((a, b) => a + b, 0) / (values.length - 1)).toFixed(2);
    console.log(
      `${`${CREATIONS} job creations, ${CLIENTS} at a time`.padEnd(34)} fsync each: ${rate(result.baselineMs)} /s   group commit: ${rate(result.candidateMs)} /s   throughput ratio: ${result.ratio.toFixed(3)}`,
    );
    console.log(
      `${''.padEnd(34)} event loop busy per creation (mean of timed rounds): fsync each ${loop(busy.fsyncEach)} ms, group commit ${loop(busy.groupCommit)} ms`,
    );
  } finally {
    await jobs.close();
    database.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchJobStoreWrites(Number(process.env.BENCH_ROUNDS ?? 7));
}
