/**
 * `fileconv/preset`: the whole service `fileconv serve` runs, in one call, for a host that mounts
 * it in its own server:
 *
 *   const fileconv = await createFileconv({ dataDir: './data' });
 *   app.use('/files', createHttpRouter(fileconv.jobs, fileconv.http));
 *   // ... on shutdown: await fileconv.close();
 *
 * Every converter (each loaded on first use, so a missing engine only removes its formats), the
 * embedded stores (one SQLite file in the data dir: jobs, uploads, keys, counters, webhook
 * outbox, Idempotency-Key answers), the rate-limit and quota counters, the signing secret (created in the data dir on
 * first start), refunds of service-fault failures, and webhook delivery when a secret is given.
 * Plans come from the options or a JSON file ($FILECONV_PLANS); `limits: false`
 * ($FILECONV_LIMITS=off) turns rate limits and quotas off for a deployment behind its own auth.
 * With a Redis URL (and an S3 bucket) it is one node of a scale-out deployment instead. The
 * engine is started: its workers take jobs from the first call on. Each option left out is read
 * from its FILECONV_ variable (preset-settings.ts), never from a host's own REDIS_URL or S3_*.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadTracing } from '../adapters/telemetry/opentelemetry.js';
import type { WebhookDeliveryReport, WebhookDispatcher } from '../adapters/webhooks/http.js';
import { FileconvError } from '../core/errors.js';
import type { PlanTable } from '../core/policy/plans.js';
import type { DocumentOperation } from '../core/ports/index.js';
import { type ConverterEntry, registrationOf } from '../engine/converter-set.js';
import { type Engine, engineOf } from '../engine/engine.js';
import { createConverter, type FileConverter } from '../engine/file-converter.js';
import { createJobEngine, type JobEngine, type JobEngineOptions } from '../engine/job-engine.js';
import { ocrOperations } from '../operations/ocr/ocr-operation.js';
import { pdfOperations } from '../operations/pdf/pdf-operations.js';
import { subtitleOperations } from '../operations/subtitles/subtitle-operations.js';
import { settleJobCharges } from '../service/metering.js';
import type { HttpServiceOptions } from '../service/service.js';
import { type Backends, createBackends, processTempDir, type S3Location } from './backends.js';
import { defaultConverters } from './converters.js';
import { presetSettings } from './preset-settings.js';
import { settingFromEnv } from './setting-sources.js';

export { type ConfigFile, DEFAULT_CONFIG_FILE, loadConfigFile } from './config-file.js';
export { defaultConverters } from './converters.js';
export {
  type ConfigFlags,
  type EffectiveConfig,
  fileconvOptionsOf,
  resolveConfig,
} from './effective-config.js';
export { limitsFromEnv, loadPlansFile } from './limits-config.js';

export interface FileconvWebhookOptions {
  /**
   * Signs every delivery (`whsec_` + base64 of 24+ random bytes, or 32+ bytes of text; the same on
   * every node of a deployment). Default $FILECONV_WEBHOOK_SECRET; one of them is required.
   */
  secret?: string;
  /** Let deliveries reach private addresses (receivers on an intranet). Default $FILECONV_WEBHOOK_ALLOW_PRIVATE, else false. */
  allowPrivateAddresses?: boolean;
  /** Each delivery's outcome. Default: failed ones are said on stderr. */
  onDelivery?: (report: WebhookDeliveryReport) => void;
}

export interface FileconvOptions {
  /** Files, the database and the signing secret. Default $FILECONV_DATA, else ./data. */
  dataDir?: string;
  /**
   * Redis for jobs, queue, counters, keys and webhooks (scale-out). Default $FILECONV_REDIS_URL,
   * else none (one machine). A host's own $REDIS_URL is never read: it is the host's Redis.
   */
  redisUrl?: string;
  /** S3 bucket for files (see `s3` for where it is). Default $FILECONV_S3_BUCKET, else files in the data dir. */
  s3Bucket?: string;
  /**
   * Where the bucket is, field by field: each field given here beats its variable. `endpoint`
   * default $FILECONV_S3_ENDPOINT, else AWS; `region` $FILECONV_S3_REGION, else us-east-1;
   * `forcePathStyle` $FILECONV_S3_FORCE_PATH_STYLE, else false; `prefix` $FILECONV_S3_PREFIX,
   * else none. AWS_REGION and the unprefixed S3_* variables are not read.
   */
  s3?: S3Location;
  /** With Redis: how long a worker may go silent before its job is handed to another, ms. Default $FILECONV_QUEUE_LOCK_MS, else 30000. */
  queueLockMs?: number;
  /**
   * Signs upload and download URLs (32+ bytes). Default $FILECONV_SIGNING_SECRET, else a secret
   * kept in the data dir (created on first start, mode 0600). Every API node must share it.
   */
  signingSecret?: string | Uint8Array;
  /** Default: every converter fileconv ships (see `defaultConverters`): registrations, or ready converters. */
  converters?: ConverterEntry[];
  /**
   * Document operations jobs may run. Default: the PDF operations (`pdfOperations()` of fileconv/pdf),
   * 'ocr' (a searchable PDF) and adding subtitles to a video (`subtitleOperations()`).
   */
  operations?: DocumentOperation[];
  /** Convert in this process. Default true; false needs Redis (workers run elsewhere). */
  worker?: boolean;
  /** Conversions at once in this process. Default 2. */
  concurrency?: number;
  /** How long results are kept, ms. Default 24 hours. */
  resultTtlMs?: number;
  /** How long an uploaded file waits for its conversion, ms (a plan's uploadRetentionSeconds goes first). Default one hour. */
  uploadTtlMs?: number;
  /**
   * The plans (limits per plan: conversions a day, file size, work budgets...). Default:
   * `http.plans`, else the JSON file named by $FILECONV_PLANS merged into DEFAULT_PLANS (see
   * `loadPlansFile`), else DEFAULT_PLANS.
   */
  plans?: PlanTable;
  /**
   * Rate limits and quotas (per-IP request rates, conversions a day, hourly uploads, monthly API
   * calls). Default $FILECONV_LIMITS (1/0, true/false, on/off, yes/no), else true. false: nothing is counted or
   * refused for it, for an internal deployment behind its own access control; each plan's file
   * size and work budgets still apply (raise them with `plans`).
   */
  limits?: boolean;
  /**
   * The most jobs that may wait in the queue (queued, not yet running): past it, new jobs over
   * HTTP are refused with 503 OVERLOADED and Retry-After, and charged nothing. With Redis the
   * count is the shared queue's, so the bound holds across API nodes (a burst of concurrent
   * creates may overshoot it by their number). Default `http.maxQueuedJobs`, else
   * $FILECONV_MAX_QUEUED_JOBS, else no bound.
   */
  maxQueuedJobs?: number;
  /**
   * Webhook delivery. Default: on when $FILECONV_WEBHOOK_SECRET is set; false turns it off. Each
   * field left out of the object is read from its variable (see FileconvWebhookOptions).
   */
  webhooks?: FileconvWebhookOptions | false;
  /** Background errors (a failed sweep, a store away). Default: console.error. */
  onError?: JobEngineOptions['onError'];
  /**
   * OpenTelemetry spans (requests, job runs, conversion steps; see fileconv/telemetry). Default
   * 'auto': on when @opentelemetry/api is installed (spans go wherever the host's SDK sends them;
   * without an SDK they cost next to nothing). false: never loaded.
   */
  tracing?: 'auto' | false;
  /**
   * More HTTP service options (publicUrl, plans, trustProxy, onRequest...), passed on in `http`.
   * A host's own sign-in (`authenticate`) is typed per framework: give it to the adapter.
   */
  http?: Omit<FileconvHttpOptions, 'signingSecret' | 'counters' | 'keys' | 'idempotency'>;
}

/** The HTTP service's options every adapter takes as they are (sign-in aside: see `http`). */
export type FileconvHttpOptions = Omit<HttpServiceOptions, 'authenticate'>;

export interface Fileconv {
  /** The converter engine: convert files in this process with it. */
  converter: FileConverter;
  /** The job engine, started (its worker runs unless `worker: false`): mount it. */
  jobs: JobEngine;
  /**
   * @deprecated Removed in 0.3.0. Both in one (createEngine's shape, and the job engine's): use
   * `converter` and `jobs`.
   */
  engine: Engine & JobEngine;
  /** The HTTP service's options for any adapter: `createHttpRouter(jobs, http)`, `createFetchHandler(jobs, http)`... */
  http: FileconvHttpOptions;
  /** The stores it runs on. */
  backends: Backends;
  /** Whether rate limits and quotas apply (the `limits` option or $FILECONV_LIMITS). */
  limits: boolean;
  /** Webhook delivery, when on. */
  webhooks: WebhookDispatcher | undefined;
  /** Stops taking jobs, gives running conversions `graceMs` (default 30 s), closes every store. */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** The data dir: the option, else $FILECONV_DATA, else ./data (absolute). */
export function dataDirOf(dataDir?: string): string {
  return resolve(dataDir ?? settingFromEnv('data')?.value ?? 'data');
}

/**
 * The signing secret: $FILECONV_SIGNING_SECRET (shared by every API node of a deployment), else
 * the one kept in the data dir, created (0600) on first start.
 */
export async function loadOrCreateSecret(dataDir: string): Promise<Buffer> {
  const fromEnv = settingFromEnv('signingSecret')?.value;
  if (fromEnv) return Buffer.from(fromEnv, 'utf8');
  const path = join(dataDir, 'signing-secret');
  try {
    const secret = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
    if (secret.length >= 32) return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  await writeFile(path, `${secret.toString('base64url')}\n`, { mode: 0o600 });
  return secret;
}

export async function createFileconv(options: FileconvOptions = {}): Promise<Fileconv> {
  // Read before anything is opened: a bad plans file or variable fails the start at once.
  const settings = await presetSettings(options);
  const { limits, plans, maxQueuedJobs } = settings;
  const dataDir = resolve(settings.dataDir);
  await mkdir(dataDir, { recursive: true });
  const signingSecret = options.signingSecret ?? (await loadOrCreateSecret(dataDir));
  const backends = await createBackends(dataDir, settings.backends);
  let converter: FileConverter;
  let jobs: JobEngine;
  let onRequest: HttpServiceOptions['onRequest'];
  let unwatchTracing: (() => void) | undefined;
  let webhooks: WebhookDispatcher | undefined;
  try {
    if (options.worker === false && !backends.shared) {
      throw new FileconvError(
        'INVALID_REQUEST',
        'An API node without workers needs a queue shared with them: give redisUrl or set FILECONV_REDIS_URL (and an S3 bucket for files).',
      );
    }
    const tracing = options.tracing === false ? undefined : await loadTracing();
    const entries = options.converters ?? defaultConverters();
    converter = createConverter({
      converters: tracing
        ? entries.map((entry) => tracing.traceRegistration(registrationOf(entry)))
        : entries,
      operations: options.operations ?? [...pdfOperations(), ...ocrOperations(), ...subtitleOperations()],
      tempDir: await processTempDir(dataDir),
    });
    jobs = createJobEngine({
      converter,
      storage: backends.storage,
      jobs: backends.jobs,
      queue: tracing ? tracing.traceQueue(backends.queue) : backends.queue,
      // An API node plans on its converters' declared edges: its workers convert.
      worker: options.worker !== false,
      concurrency: options.concurrency,
      resultTtlMs: options.resultTtlMs,
      uploadTtlMs: options.uploadTtlMs,
      onError: options.onError ?? ((error, context) => console.error(`fileconv: ${context}:`, error)),
      // A conversion that failed through the service's fault does not count against the quota.
      onJobSettled: settleJobCharges(backends.counters),
    });
    unwatchTracing = tracing?.watch(jobs);
    const hostOnRequest = options.http?.onRequest;
    onRequest = tracing
      ? (event) => {
          tracing.onRequest(event);
          hostOnRequest?.(event);
        }
      : hostOnRequest;
    const webhookOptions = settings.webhooks;
    if (webhookOptions) {
      const { createWebhookDispatcher } = await import('../adapters/webhooks/http.js');
      webhooks = createWebhookDispatcher(jobs, { ...webhookOptions, outbox: backends.outbox });
    }
    await jobs.start();
  } catch (error) {
    await backends.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    converter,
    jobs,
    engine: engineOf(converter, jobs),
    http: {
      ...options.http,
      ...(onRequest ? { onRequest } : {}),
      ...(plans ? { plans } : {}),
      ...(maxQueuedJobs === undefined ? {} : { maxQueuedJobs }),
      signingSecret,
      // Without counters the HTTP service limits and counts nothing (HttpServiceOptions.counters).
      ...(limits ? { counters: backends.counters } : {}),
      keys: backends.keys,
      idempotency: backends.idempotency,
    },
    backends,
    limits,
    webhooks,
    close(closeOptions = {}) {
      closing ??= (async () => {
        // Before the engine closes its job store, which records delivery outcomes.
        await webhooks?.close();
        await jobs.close({ graceMs: closeOptions.graceMs ?? 30_000 });
        unwatchTracing?.();
        await backends.close();
      })();
      return closing;
    },
  };
}
