/**
 * Serving a Metrics registry in the Prometheus text format: a `node:http` request listener for
 * GET/HEAD /metrics, a fetch-style Response for Hono and Next.js route handlers, and a server of
 * its own on a separate port (what `--metrics-port` starts), so metrics never share the public
 * API's port, its access rules or its rate limits.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { FileconvError } from '../../core/errors.js';
import { checkOptionsObject, invalidOption } from '../validate-options.js';
import type { Metrics } from './instruments.js';

export const METRICS_PATH = '/metrics';

export type MetricsHandler = (req: IncomingMessage, res: ServerResponse) => void;

const TEXT = 'text/plain; charset=utf-8';

/** A `node:http` request listener: GET and HEAD /metrics answer the registry; other paths 404. */
export function createMetricsHandler(metrics: Metrics): MetricsHandler {
  checkMetrics('createMetricsHandler', metrics);
  return (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'content-type': TEXT }).end(`Not found: metrics are at ${METRICS_PATH}\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': TEXT, allow: 'GET, HEAD' }).end('Method not allowed\n');
      return;
    }
    void scrape(metrics).then(({ status, contentType, body }) => {
      res
        .writeHead(status, {
          'content-type': contentType,
          'content-length': Buffer.byteLength(body),
          'cache-control': 'no-store',
        })
        .end(req.method === 'HEAD' ? undefined : body);
    });
  };
}

/** The registry's content as a fetch Response (Hono, Next.js route handlers): `GET /metrics` is the host's route. */
export async function metricsResponse(metrics: Metrics): Promise<Response> {
  checkMetrics('metricsResponse', metrics);
  const { status, contentType, body } = await scrape(metrics);
  return new Response(body, {
    status,
    headers: { 'content-type': contentType, 'cache-control': 'no-store' },
  });
}

export interface ServeMetricsOptions {
  /** Port to listen on; 0 picks a free one (see the returned url). Required. */
  port: number;
  /** Address to bind. Default '0.0.0.0' (Prometheus usually scrapes from another machine). */
  host?: string;
}

export interface MetricsServer {
  /** Where the metrics are: `http://<host>:<port>/metrics`. */
  url: string;
  /** Stops listening and ends open (keep-alive) scrape connections. */
  close(): Promise<void>;
}

/** Starts a `node:http` server answering only GET/HEAD /metrics on a port of its own. */
export async function serveMetrics(metrics: Metrics, options: ServeMetricsOptions): Promise<MetricsServer> {
  checkMetrics('serveMetrics', metrics);
  const given = checkOptionsObject('serveMetrics', options);
  const { port } = given;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw invalidOption('serveMetrics', 'port', 'an integer from 0 to 65535', port);
  }
  const host = given.host ?? '0.0.0.0';
  if (typeof host !== 'string' || host === '')
    throw invalidOption('serveMetrics', 'host', 'an address', host);

  const server = createServer(createMetricsHandler(metrics));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new FileconvError('INVALID_REQUEST', `serveMetrics: port ${port} is in use.`, { cause: error })
          : error,
      );
    });
    server.listen(port, host, () => resolve());
  });
  return {
    url: `http://${displayHost(host)}:${boundPort(server, port)}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Prometheus keeps its scrape connection open between scrapes: without this, close() would wait for it.
        server.closeAllConnections();
      }),
  };
}

interface Scrape {
  status: number;
  contentType: string;
  body: string;
}

/**
 * The registry's text, or a 500 naming what failed: Prometheus shows the body of a failed scrape
 * on its targets page, which beats a bare status.
 */
async function scrape(metrics: Metrics): Promise<Scrape> {
  try {
    return { status: 200, contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { status: 500, contentType: TEXT, body: `Collecting metrics failed: ${reason}\n` };
  }
}

function checkMetrics(caller: string, metrics: Metrics): void {
  if (typeof metrics?.registry?.metrics !== 'function') {
    throw invalidOption(caller, 'metrics', 'the object createMetrics returned', metrics);
  }
}

function boundPort(server: Server, fallback: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : fallback;
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
