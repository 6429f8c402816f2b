/**
 * Redis JobStore: the shared job store of a deployment with many API and worker processes. Each
 * record is one JSON string (`<prefix>:job:<id>`, `<prefix>:file:<id>`); sorted sets index jobs
 * by status (`<prefix>:jobs:<status>`, score = createdAt in ms, ties by id) and files by expiry
 * (`<prefix>:files:expiring`, score = expiresAt in ms). Create is SET NX, and every update is one
 * Lua script that compares the stored version, writes the record and moves its index entry, so
 * two processes updating from the same version can never both win, and the indexes never
 * disagree with the records. Ids follow the same rules as the embedded stores (record-rules.ts).
 */
import type { FileRecord, Job, JobStatus } from '../../core/jobs/types.js';
import { JOB_STATUSES } from '../../core/jobs/types.js';
import type { JobStore } from '../../core/ports/index.js';
import {
  checkErrorReporter,
  openRedis,
  type RedisConnectionOptions,
  type RedisHandle,
  resolveRedisSettings,
} from '../redis/connection.js';
import { getMany, instantScore, luaScript, parseStored, runScript } from '../redis/records.js';
import { checkOptionsObject } from '../validate-options.js';
import {
  assertNextVersion,
  assertStorableRecord,
  checkListFilter,
  duplicateError,
  isStorableId,
  type ListJobsFilter,
  notFoundError,
  type RecordKind,
  selectExpiredFiles,
  selectJobs,
  type VersionedRecord,
} from './record-rules.js';

const ADAPTER = 'createRedisJobStore';

export interface RedisJobStoreOptions extends RedisConnectionOptions {
  /** Called with connection errors while the client reconnects. Default: a process warning, at most one a minute. */
  onError?: (error: unknown) => void;
}

export interface RedisJobStore extends JobStore {
  /** Closes the store's own Redis client (a given `connection` stays open). */
  close(): Promise<void>;
}

/** KEYS[1] record, KEYS[2] index. ARGV[1] record JSON, ARGV[2] index score, ARGV[3] id. 1 = created. */
const CREATE = luaScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
`);

/**
 * KEYS[1] record, KEYS[2] the index it belongs in now, KEYS[3..] indexes it may leave.
 * ARGV[1] record JSON, ARGV[2] the version the stored record must have, ARGV[3] score, ARGV[4] id.
 * Returns {1} when written, {0} when there is no record, {2, storedVersion} on a conflict.
 */
const UPDATE = luaScript(`
local stored = redis.call('GET', KEYS[1])
if not stored then return {0} end
local version = cjson.decode(stored).version
if version ~= tonumber(ARGV[2]) then return {2, version} end
redis.call('SET', KEYS[1], ARGV[1])
for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return {1}
`);

interface Collection<T extends VersionedRecord> {
  create(record: T): Promise<void>;
  get(id: string): Promise<T | null>;
  update(record: T): Promise<void>;
  /** Records of these keys, in order, missing ones left out. */
  read(keys: readonly string[]): Promise<T[]>;
  recordKey(id: string): string;
}

/**
 * One kind of record. `indexOf` names the index a record belongs in and its score;
 * `indexes` lists every index a record of this kind can be in.
 */
function createCollection<T extends VersionedRecord>(
  redis: RedisHandle,
  kind: RecordKind,
  indexes: readonly string[],
  indexOf: (record: T) => { index: string; score: string },
): Collection<T> {
  const recordKey = (id: string) => redis.key(`${kind}:${id}`);

  async function read(keys: readonly string[]): Promise<T[]> {
    if (keys.length === 0) return [];
    const texts = await redis.run(`read ${kind} records`, (client) => getMany(client, keys));
    const records: T[] = [];
    texts.forEach((text, index) => {
      if (text !== null) records.push(parseStored<T>(redis.settings, keys[index]!, text));
    });
    return records;
  }

  return {
    recordKey,
    read,

    async create(record) {
      assertStorableRecord(kind, record);
      const { index, score } = indexOf(record);
      const created = await redis.run(`create a ${kind} record`, (client) =>
        runScript(client, CREATE, [recordKey(record.id), index], [JSON.stringify(record), score, record.id]),
      );
      if (created !== 1) throw duplicateError(kind, record.id);
    },

    async get(id) {
      // An id that could not be stored cannot exist; it never reaches a key name either.
      if (!isStorableId(id)) return null;
      const [record] = await read([recordKey(id)]);
      return record ?? null;
    },

    async update(record) {
      assertStorableRecord(kind, record);
      const { index, score } = indexOf(record);
      const others = indexes.filter((candidate) => candidate !== index);
      const reply = (await redis.run(`update a ${kind} record`, (client) =>
        runScript(
          client,
          UPDATE,
          [recordKey(record.id), index, ...others],
          [JSON.stringify(record), record.version - 1, score, record.id],
        ),
      )) as [number, number?];
      if (reply[0] === 0) throw notFoundError(kind, record.id);
      if (reply[0] === 2) assertNextVersion(kind, { id: record.id, version: Number(reply[1]) }, record);
    },
  };
}

/** A JobStore on Redis, shared by every process of a deployment. */
export function createRedisJobStore(options?: RedisJobStoreOptions): RedisJobStore {
  const given = checkOptionsObject(ADAPTER, options);
  const settings = resolveRedisSettings(ADAPTER, given);
  const redis = openRedis(settings, 'jobs', checkErrorReporter(ADAPTER, given.onError));

  const statusIndex = (status: JobStatus) => redis.key(`jobs:${status}`);
  const statusIndexes = JOB_STATUSES.map(statusIndex);
  const expiringIndex = redis.key('files:expiring');

  const jobs = createCollection<Job>(redis, 'job', statusIndexes, (job) => ({
    // Like the embedded stores, the store does not judge statuses; an unknown one is never listed.
    index: statusIndex(job.status),
    score: instantScore(job.createdAt),
  }));
  const files = createCollection<FileRecord>(redis, 'file', [expiringIndex], (file) => ({
    index: expiringIndex,
    score: instantScore(file.expiresAt),
  }));

  return {
    createFile: (file) => files.create(file),
    getFile: (id) => files.get(id),
    updateFile: (file) => files.update(file),

    async deleteFile(id) {
      if (!isStorableId(id)) return;
      await redis.run('delete a file record', (client) =>
        client.multi().del(files.recordKey(id)).zrem(expiringIndex, id).exec(),
      );
    },

    async listFiles(filter) {
      selectExpiredFiles([], filter); // validates the filter before Redis is asked anything
      if (filter.limit === 0) return [];
      const before = Date.parse(filter.expiresBefore);
      const ids = await redis.run('list expiring files', (client) =>
        filter.limit === undefined
          ? client.zrangebyscore(expiringIndex, '-inf', `(${before}`)
          : client.zrangebyscore(expiringIndex, '-inf', `(${before}`, 'LIMIT', 0, filter.limit),
      );
      // Re-checked against the records read: one updated meanwhile is judged by its new expiry.
      return selectExpiredFiles(await files.read(ids.map(files.recordKey)), filter);
    },

    createJob: (job) => jobs.create(job),
    getJob: (id) => jobs.get(id),
    updateJob: (job) => jobs.update(job),

    async listJobs(filter: ListJobsFilter) {
      const { statuses, limit } = checkListFilter(filter);
      if (statuses.size === 0 || limit === 0) return [];
      // Each index is in (createdAt, id) order already, so the oldest `limit` of each suffice.
      const last = Number.isFinite(limit) ? limit - 1 : -1;
      const ids = await redis.run('list jobs', async (client) => {
        const pipeline = client.pipeline();
        for (const status of statuses) pipeline.zrange(statusIndex(status), 0, String(last));
        const replies = (await pipeline.exec()) ?? [];
        return replies.flatMap(([error, value]) => {
          if (error) throw error;
          return value as string[];
        });
      });
      // A job that moved between two listed statuses meanwhile is read once, and every job is
      // judged by the record read, not by the index it was found in.
      const unique = [...new Set(ids)];
      return selectJobs(await jobs.read(unique.map(jobs.recordKey)), filter);
    },

    close: () => redis.close(),
  };
}
