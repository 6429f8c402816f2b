/**
 * The Prometheus instruments fileconv exports, defined in one place: names (base units, `_total`
 * on counters), help texts, labels and buckets. Values come from the job events of an
 * instrumented engine, from the HTTP service's request events, and, for the gauges, from
 * Engine.stats() read at scrape time (see engine-metrics.ts).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RequestEvent } from '../../service/service.js';

/**
 * Conversions take from a few milliseconds (a small image) to the 10-minute default timeout
 * (a long video), so the buckets span 0.05 s to 600 s, roughly doubling.
 */
export const CONVERSION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600] as const;

/** A queue wait is near zero on an idle service and can reach an hour behind a backlog. */
export const QUEUE_WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 600, 1800, 3600] as const;

/** Most requests answer in milliseconds; POST /api/convert waits for its conversion (up to 10 min). */
export const HTTP_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600,
] as const;

/** Every metric's name without the prefix (the default prefix is 'fileconv_'). */
export const METRIC_NAMES = {
  jobsCreated: 'jobs_created_total',
  jobsSettled: 'jobs_settled_total',
  conversionDuration: 'conversion_duration_seconds',
  queueWait: 'queue_wait_seconds',
  queueDepth: 'queue_depth',
  jobsProcessing: 'jobs_processing',
  httpRequests: 'http_requests_total',
  httpRequestDuration: 'http_request_duration_seconds',
  httpRejected: 'http_rejected_requests_total',
  uploadBytes: 'upload_bytes_total',
  converterProcesses: 'converter_processes',
  converterBusyProcesses: 'converter_busy_processes',
  converterQueued: 'converter_queued_conversions',
  converterRestarts: 'converter_process_restarts_total',
} as const;

export type MetricKey = keyof typeof METRIC_NAMES;

export interface Instruments {
  /** Jobs created by this process (API nodes), by the converter(s) of their chain. */
  jobsCreated: Counter<'converter'>;
  /** Jobs that reached completed, failed or canceled in this process, with the error code of a failure. */
  jobsSettled: Counter<'status' | 'converter' | 'code'>;
  /** Start to completion of each completed job (conversion and storing the result), seconds. */
  conversionDuration: Histogram<'converter' | 'from' | 'to'>;
  /** Creation to first start of each job, seconds. */
  queueWait: Histogram<string>;
  /** Job ids waiting in the queue (read at scrape time). */
  queueDepth: Gauge<string>;
  /** Jobs this process is converting (read at scrape time). */
  jobsProcessing: Gauge<string>;
  httpRequests: Counter<'route' | 'method' | 'status' | 'code'>;
  httpRequestDuration: Histogram<'route' | 'method'>;
  /** Requests refused with a 4xx answer, or shed with 503 OVERLOADED (maxQueuedJobs), by error code. */
  httpRejected: Counter<'code'>;
  /** Bytes of uploads stored through the HTTP service, by route (Flow B multipart, Flow A PUT). */
  uploadBytes: Counter<'route'>;
  /** Engine processes of converters that report them (ConverterStats), read at scrape time. */
  converterProcesses: Gauge<'converter'>;
  converterBusyProcesses: Gauge<'converter'>;
  converterQueued: Gauge<'converter'>;
  converterRestarts: Counter<'converter'>;
}

/** What createMetrics returns: the registry, every instrument, and the HTTP service's hook. */
export interface Metrics extends Instruments {
  /** The registry the instruments are registered in (serve it with createMetricsHandler). */
  readonly registry: Registry;
  /** Records one answered request: pass it as the HTTP service's `onRequest` (or call it from yours). */
  recordRequest(event: RequestEvent): void;
}

/** What the scrape-time instruments read from; engine-metrics.ts fills them in. */
export interface ScrapeHooks {
  /** Resolves once observations still waiting for their converter label are recorded. */
  labelled(): Promise<void>;
  /** Refreshes the gauges (and the restart counter) from the instrumented engines. */
  refresh(): Promise<void>;
}

export function createInstruments(registry: Registry, prefix: string, hooks: ScrapeHooks): Instruments {
  const name = (key: MetricKey) => `${prefix}${METRIC_NAMES[key]}`;
  const registers = [registry];
  // Job metrics are recorded from events; some wait for their converter label (an engine.plan
  // the first time a chain is seen), so a scrape first lets those land: what a test or a user
  // sees right after a job settled is already counted.
  const labelled = () => hooks.labelled();
  const refresh = () => hooks.refresh();
  return {
    jobsCreated: new Counter({
      name: name('jobsCreated'),
      help: 'Jobs created by this process, by the converter(s) of their chain (joined with +).',
      labelNames: ['converter'],
      registers,
      collect: labelled,
    }),
    jobsSettled: new Counter({
      name: name('jobsSettled'),
      help: 'Jobs settled in this process: status completed, failed or canceled; code is the error code ("" when completed).',
      labelNames: ['status', 'converter', 'code'],
      registers,
      collect: labelled,
    }),
    conversionDuration: new Histogram({
      name: name('conversionDuration'),
      help: 'Seconds from the start of a completed job to its completion (conversion chain and storing the result), by converter and edge.',
      labelNames: ['converter', 'from', 'to'],
      buckets: [...CONVERSION_BUCKETS],
      registers,
      collect: labelled,
    }),
    queueWait: new Histogram({
      name: name('queueWait'),
      help: "Seconds from a job's creation to its first start (clocks of the API node and the worker).",
      buckets: [...QUEUE_WAIT_BUCKETS],
      registers,
    }),
    queueDepth: new Gauge({
      name: name('queueDepth'),
      help: 'Job ids waiting in the queue, as the queue counts them; a shared queue reports the same number in every process (aggregate with max).',
      registers,
      collect: refresh,
    }),
    jobsProcessing: new Gauge({
      name: name('jobsProcessing'),
      help: 'Jobs this process is converting now (aggregate with sum).',
      registers,
      collect: refresh,
    }),
    httpRequests: new Counter({
      name: name('httpRequests'),
      help: 'Answered HTTP requests by route pattern, method, status and error code ("" when none).',
      labelNames: ['route', 'method', 'status', 'code'],
      registers,
    }),
    httpRequestDuration: new Histogram({
      name: name('httpRequestDuration'),
      help: 'Seconds from receiving a request to its answer (POST /api/convert includes the conversion), by route and method.',
      labelNames: ['route', 'method'],
      buckets: [...HTTP_BUCKETS],
      registers,
    }),
    httpRejected: new Counter({
      name: name('httpRejected'),
      help: 'Requests refused with a 4xx answer, or shed with 503 OVERLOADED (too many jobs waiting), by error code.',
      labelNames: ['code'],
      registers,
    }),
    uploadBytes: new Counter({
      name: name('uploadBytes'),
      help: 'Bytes of uploads stored through the HTTP service, by route (uploads straight to S3 are not seen).',
      labelNames: ['route'],
      registers,
    }),
    converterProcesses: new Gauge({
      name: name('converterProcesses'),
      help: 'Engine processes (or threads) of a converter alive now: warm LibreOffice workers, ffmpeg runs in flight.',
      labelNames: ['converter'],
      registers,
      collect: refresh,
    }),
    converterBusyProcesses: new Gauge({
      name: name('converterBusyProcesses'),
      help: "Of a converter's engine processes, those converting now.",
      labelNames: ['converter'],
      registers,
      collect: refresh,
    }),
    converterQueued: new Gauge({
      name: name('converterQueued'),
      help: "Conversions waiting for a free engine process of the converter (the LibreOffice pool's queue).",
      labelNames: ['converter'],
      registers,
      collect: refresh,
    }),
    converterRestarts: new Counter({
      name: name('converterRestarts'),
      help: 'Engine processes a converter replaced: recycled after N conversions or for memory, killed on timeout or abort, or died.',
      labelNames: ['converter'],
      registers,
      collect: refresh,
    }),
  };
}
