/**
 * instrumentEngine: the job metrics from an engine's job events, and the gauges from its stats()
 * read at scrape time. An engine emits an event in the process where the change happened
 * (created and canceled where the API runs; started, completed and failed where the worker
 * runs), so an API-only node, a worker-only node and `fileconv serve` each count exactly their
 * own share, and Prometheus sums the processes of a deployment without counting a job twice.
 */

import { FileconvError } from '../../core/errors.js';
import type { Job } from '../../core/jobs/types.js';
import type { EngineStats } from '../../engine/engine-stats.js';
import type { JobEngine } from '../../engine/job-engine.js';

/** What the metrics read of an engine: its job events, its stats, and plans (to label a job's converters). */
export type InstrumentedEngine = Pick<JobEngine, 'onJobEvent' | 'stats' | 'plan'>;

import type { JobLifecycleEvent } from '../../engine/job-events.js';
import { invalidOption } from '../validate-options.js';
import type { Instruments, Metrics, ScrapeHooks } from './instruments.js';

/** The converter label of a job whose chain this process cannot plan (a converter missing here). */
export const UNKNOWN_CONVERTER = 'unknown';

/** What instrumentEngine attaches an engine to: kept per Metrics object, out of its public shape. */
interface EngineSources {
  engines: Set<InstrumentedEngine>;
  /** Recordings waiting for their converter label; a scrape waits for them first. */
  labelling: Set<Promise<void>>;
}

const sourcesOf = new WeakMap<Metrics, EngineSources>();

/**
 * The scrape hooks of a new Metrics object (created before its instruments, which need them)
 * and `attach`, which ties the finished object to them so instrumentEngine can find them.
 */
export function createEngineSources(): { hooks: ScrapeHooks; attach(metrics: Metrics): void } {
  const sources: EngineSources = { engines: new Set(), labelling: new Set() };
  let instruments: Instruments | undefined;
  let refreshing: Promise<void> | undefined;
  const hooks: ScrapeHooks = {
    async labelled() {
      // Settled, not all: a recording that threw is already reported to the engine's onError.
      while (sources.labelling.size > 0) await Promise.allSettled([...sources.labelling]);
    },
    refresh() {
      // Six instruments collect at every scrape, all at once: they share one read of the engines
      // (one Queue.size call, a Redis round trip for BullMQ), not one read each.
      refreshing ??= readEngines(sources.engines).then((reports) => {
        refreshing = undefined;
        if (instruments) applyStats(instruments, reports);
      });
      return refreshing;
    },
  };
  return {
    hooks,
    attach(metrics) {
      instruments = metrics;
      sourcesOf.set(metrics, sources);
    },
  };
}

/**
 * Records `engine`'s job events into `metrics` and reads its stats() at every scrape. Returns the
 * function that stops both. Call it once per engine and Metrics object: a second call would
 * count every job twice, and throws instead.
 */
export function instrumentEngine(metrics: Metrics, engine: InstrumentedEngine): () => void {
  const sources = sourcesOf.get(metrics);
  if (!sources)
    throw invalidOption('instrumentEngine', 'metrics', 'the object createMetrics returned', metrics);
  if (typeof engine?.onJobEvent !== 'function' || typeof engine.stats !== 'function') {
    throw invalidOption('instrumentEngine', 'engine', 'a job engine (createJobEngine)', engine);
  }
  if (sources.engines.has(engine)) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      'instrumentEngine: this engine is already instrumented on these metrics (its jobs would count twice).',
    );
  }
  sources.engines.add(engine);
  const labelOf = converterLabeller(engine, sources.labelling);
  const unsubscribe = engine.onJobEvent((event) => recordJobEvent(metrics, event, labelOf));
  let attached = true;
  return () => {
    if (!attached) return;
    attached = false;
    unsubscribe();
    sources.engines.delete(engine);
  };
}

type LabelOf = (job: Job, record: (converter: string) => void) => Promise<void> | undefined;

/**
 * Returns what the engine's listener returns: a promise when the recording waits for a label, so
 * that a throw in it reaches the engine's onError like a listener's own.
 */
function recordJobEvent(
  instruments: Instruments,
  { type, job }: JobLifecycleEvent,
  labelOf: LabelOf,
): Promise<void> | undefined {
  switch (type) {
    case 'created':
      return labelOf(job, (converter) => instruments.jobsCreated.inc({ converter }));
    case 'started': {
      // The first start only: a job run again after a crash has waited through its first run too.
      const waited = job.attempts === 1 ? secondsBetween(job.createdAt, job.startedAt) : undefined;
      if (waited !== undefined) instruments.queueWait.observe(waited);
      return undefined;
    }
    case 'completed':
      return labelOf(job, (converter) => {
        instruments.jobsSettled.inc({ status: 'completed', converter, code: '' });
        const took = secondsBetween(job.startedAt, job.completedAt);
        if (took !== undefined) {
          instruments.conversionDuration.observe(
            { converter, from: job.sourceFormat, to: job.targetFormat },
            took,
          );
        }
      });
    case 'failed':
    case 'canceled':
      return labelOf(job, (converter) =>
        instruments.jobsSettled.inc({ status: type, converter, code: job.error?.code ?? '' }),
      );
    default:
      // progress (a hint, not a count) and expired (retention, not an outcome).
      return undefined;
  }
}

/**
 * Seconds between two of a job's timestamps; undefined when one is missing. A job may be created
 * on an API node and started on a worker: clock skew between the two could make a short wait
 * negative, which is recorded as 0.
 */
function secondsBetween(from: string | null, to: string | null): number | undefined {
  if (from === null || to === null) return undefined;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isNaN(ms) ? undefined : Math.max(0, ms) / 1000;
}

/**
 * The converter label of a job: the converters of its chain, in order, joined with '+' ('sharp',
 * 'libreoffice+pdf'). A job records its planned formats, not its converters, so each distinct
 * path is planned once with engine.plan, as the worker replans it step by step, and remembered;
 * every later job on that path is labelled at once, in the event's own call.
 */
function converterLabeller(engine: InstrumentedEngine, labelling: Set<Promise<void>>): LabelOf {
  const known = new Map<string, string>();
  const planning = new Map<string, Promise<string>>();
  return (job, record) => {
    const key = job.path.join('>');
    const label = known.get(key);
    if (label !== undefined) {
      record(label);
      return undefined;
    }
    let pending = planning.get(key);
    if (!pending) {
      pending = chainConverters(engine, job.path).then((found) => {
        known.set(key, found);
        planning.delete(key);
        return found;
      });
      planning.set(key, pending);
    }
    const recorded = pending.then(record);
    labelling.add(recorded);
    const forget = () => {
      labelling.delete(recorded);
    };
    recorded.then(forget, forget);
    return recorded;
  };
}

async function chainConverters(engine: InstrumentedEngine, path: readonly string[]): Promise<string> {
  try {
    const plans = await Promise.all(path.slice(1).map((to, index) => engine.plan(path[index]!, to)));
    const names = [...new Set(plans.flatMap((plan) => plan.steps.map((step) => step.converter)))];
    return names.length > 0 ? names.join('+') : UNKNOWN_CONVERTER;
  } catch {
    return UNKNOWN_CONVERTER;
  }
}

async function readEngines(engines: ReadonlySet<InstrumentedEngine>): Promise<EngineStats[]> {
  const reports = await Promise.all(
    // An engine that cannot report leaves its gauges out of this scrape; the scrape still answers.
    [...engines].map((engine) => engine.stats().catch(() => undefined)),
  );
  return reports.filter((report): report is EngineStats => report !== undefined);
}

/** Sets the scrape-time instruments from the engines' reports, summed over engines. */
function applyStats(instruments: Instruments, reports: readonly EngineStats[]): void {
  const {
    queueDepth,
    jobsProcessing,
    converterProcesses,
    converterBusyProcesses,
    converterQueued,
    converterRestarts,
  } = instruments;
  // Reset first, so a converter or engine that stopped reporting drops out instead of freezing.
  for (const instrument of [
    queueDepth,
    jobsProcessing,
    converterProcesses,
    converterBusyProcesses,
    converterQueued,
    converterRestarts,
  ]) {
    instrument.reset();
  }
  // prom-client starts a gauge without labels at 0; unknown is no sample, not a made-up 0.
  queueDepth.remove();
  jobsProcessing.remove();
  if (reports.length === 0) return;
  const queued = reports.flatMap((report) => (report.queued === undefined ? [] : [report.queued]));
  if (queued.length > 0) queueDepth.set(sum(queued));
  jobsProcessing.set(sum(reports.map((report) => report.processing)));

  const byConverter = new Map<
    string,
    { processes?: number; busy?: number; queued?: number; restarts?: number }
  >();
  for (const report of reports) {
    for (const [converter, stats] of Object.entries(report.converters)) {
      const total = byConverter.get(converter) ?? {};
      for (const field of ['processes', 'busy', 'queued', 'restarts'] as const) {
        const value = stats[field];
        if (value !== undefined) total[field] = (total[field] ?? 0) + value;
      }
      byConverter.set(converter, total);
    }
  }
  for (const [converter, total] of byConverter) {
    if (total.processes !== undefined) converterProcesses.set({ converter }, total.processes);
    if (total.busy !== undefined) converterBusyProcesses.set({ converter }, total.busy);
    if (total.queued !== undefined) converterQueued.set({ converter }, total.queued);
    // The converter keeps the running total; the counter shows it as it is (it only grows).
    if (total.restarts !== undefined) converterRestarts.inc({ converter }, total.restarts);
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
