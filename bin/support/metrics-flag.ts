/**
 * `--metrics-port` for `fileconv serve` and `fileconv worker`: Prometheus metrics of the
 * process's engine (and, for serve, its HTTP requests) on a port of their own. Without the flag
 * nothing is started and prom-client is never loaded: the endpoint is a no-op.
 */

import type { InstrumentedEngine } from '../../src/adapters/metrics/engine-metrics.js';
import { FileconvError } from '../../src/core/errors.js';
import { packageUnavailable } from '../../src/kit/engine-packages.js';
import type { RequestEvent } from '../../src/service/service.js';

export interface MetricsEndpoint {
  /** Where Prometheus scrapes, for the start-up log; undefined without --metrics-port. */
  url: string | undefined;
  /** Feed the HTTP service's onRequest with it (serve); a worker has no requests. */
  recordRequest(event: RequestEvent): void;
  /** Stops the endpoint and the engine's instrumentation. */
  close(): Promise<void>;
}

const DISABLED: MetricsEndpoint = {
  url: undefined,
  recordRequest() {},
  close: async () => {},
};

/**
 * Starts the metrics endpoint for `engine` on `port` (bound to `host`, default every address),
 * or nothing when `port` is undefined. Fails (INVALID_REQUEST) when the port is taken, so a
 * misconfigured process stops at start-up instead of running unobserved.
 */
export async function startMetricsEndpoint(
  engine: InstrumentedEngine,
  port: number | undefined,
  host?: string,
): Promise<MetricsEndpoint> {
  if (port === undefined) return DISABLED;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `--metrics-port must be a port number (0-65535), not ${port}.`,
    );
  }
  // Loaded here so that processes without --metrics-port never pay for prom-client.
  const { createMetrics, instrumentEngine, serveMetrics } = await import(
    '../../src/adapters/metrics/prometheus.js'
  ).catch((error: unknown) => {
    throw packageUnavailable('metrics', 'prom-client', '--metrics-port', error);
  });
  const metrics = createMetrics();
  const stopWatching = instrumentEngine(metrics, engine);
  const server = await serveMetrics(metrics, { port, ...(host === undefined ? {} : { host }) }).catch(
    (error: unknown) => {
      stopWatching();
      throw error;
    },
  );
  return {
    url: server.url,
    recordRequest: metrics.recordRequest,
    async close() {
      stopWatching();
      await server.close();
    },
  };
}
