/**
 * Prometheus metrics for fileconv, on prom-client, built only on the public API: an engine's job
 * events and stats(), and the HTTP service's `onRequest` hook. Jobs created and settled (by
 * status, converter and error code), conversion time per converter and edge, queue wait and
 * depth, HTTP requests, refusals and upload bytes, converters' engine processes (the LibreOffice
 * pool, ffmpeg), and the process's own metrics.
 *
 *   const metrics = createMetrics();
 *   instrumentEngine(metrics, engine);
 *   createServer(createNodeHandler(engine, { signingSecret, onRequest: metrics.recordRequest })).listen(3000);
 *   await serveMetrics(metrics, { port: 9464 }); // GET http://localhost:9464/metrics
 *
 * Every process counts what happens in it (API nodes: jobs created and canceled, requests;
 * workers: conversions), so a deployment's totals are sums over its processes.
 * deploy/grafana/fileconv-dashboard.json charts these names.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import { checkBoolean, checkOptionsObject, invalidOption } from '../validate-options.js';
import { createEngineSources } from './engine-metrics.js';
import { createInstruments, METRIC_NAMES, type Metrics } from './instruments.js';
import { recordRequest } from './request-metrics.js';

export { instrumentEngine, UNKNOWN_CONVERTER } from './engine-metrics.js';
export {
  CONVERSION_BUCKETS,
  HTTP_BUCKETS,
  type Instruments,
  METRIC_NAMES,
  type MetricKey,
  type Metrics,
  QUEUE_WAIT_BUCKETS,
} from './instruments.js';
export {
  createMetricsHandler,
  METRICS_PATH,
  type MetricsHandler,
  type MetricsServer,
  metricsResponse,
  type ServeMetricsOptions,
  serveMetrics,
} from './metrics-endpoint.js';
export { UNMATCHED_ROUTE } from './request-metrics.js';

export interface MetricsOptions {
  /** Where the instruments are registered. Default: a new Registry (pass prom-client's `register` to share yours). */
  registry?: Registry;
  /** Prepended to every fileconv metric name. Default 'fileconv_'. */
  prefix?: string;
  /**
   * Also collect prom-client's default process metrics (process_resident_memory_bytes,
   * nodejs_eventloop_lag_seconds, ...), unprefixed as usual; skipped when the registry already
   * has them. Default true.
   */
  collectDefault?: boolean;
}

export const DEFAULT_PREFIX = 'fileconv_';

/** Any prefix that keeps every name a valid Prometheus metric name. */
const PREFIX_PATTERN = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/;

/** A metric prom-client's collectDefaultMetrics registers: present means they are collected already. */
const DEFAULT_METRIC_PROBE = 'process_cpu_user_seconds_total';

/** Creates the instruments in a registry; options are checked here (INVALID_OPTIONS names the bad one). */
export function createMetrics(options?: MetricsOptions): Metrics {
  const given = checkOptionsObject('createMetrics', options);
  const registry = given.registry ?? new Registry();
  // Duck-typed: a host's own copy of prom-client makes registries `instanceof` would refuse.
  if (typeof registry?.registerMetric !== 'function' || typeof registry.getSingleMetric !== 'function') {
    throw invalidOption('createMetrics', 'registry', 'a prom-client Registry', registry);
  }
  const prefix = given.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw invalidOption(
      'createMetrics',
      'prefix',
      'letters, digits, _ and : (not starting with a digit)',
      prefix,
    );
  }
  const collectDefault = checkBoolean('createMetrics', 'collectDefault', given.collectDefault, true);
  // prom-client would throw on the first duplicate after registering the others: check them all first.
  const taken = Object.values(METRIC_NAMES)
    .map((name) => `${prefix}${name}`)
    .find((name) => registry.getSingleMetric(name) !== undefined);
  if (taken) {
    throw invalidOption(
      'createMetrics',
      'registry',
      `a registry without ${taken} (reuse the first createMetrics() or pass another prefix)`,
      registry,
    );
  }

  const sources = createEngineSources();
  const instruments = createInstruments(registry, prefix, sources.hooks);
  if (collectDefault && registry.getSingleMetric(DEFAULT_METRIC_PROBE) === undefined) {
    collectDefaultMetrics({ register: registry });
  }
  const metrics: Metrics = {
    ...instruments,
    registry,
    // An arrow, so `onRequest: metrics.recordRequest` works unbound.
    recordRequest: (event) => recordRequest(instruments, event),
  };
  sources.attach(metrics);
  return metrics;
}
