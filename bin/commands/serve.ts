/**
 * `fileconv serve` (what `npm start` runs): the whole service on one machine with nothing to set
 * up. Filesystem storage and job store under the data dir, in-process queue and workers, a
 * signing secret created on first start and kept in the data dir. With Redis (and S3)
 * it is one API node of many, with or without its own workers (--no-worker). SIGTERM/SIGINT stop
 * taking requests, let running conversions finish within a grace period, leave the rest queued.
 * Plans come from a JSON file (--plans, $FILECONV_PLANS); --no-limits ($FILECONV_LIMITS=off)
 * turns rate limits and quotas off for an internal deployment behind its own access control.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createNodeHandler } from '../../src/adapters/http/node.js';
import { DEFAULT_PLANS, FileconvError, type JobEngine, type PlanTable } from '../../src/index.js';
import { releaseSharpCache } from '../../src/kit/libraries/sharp.js';
import {
  type ConfigFlags,
  type EffectiveConfig,
  fileconvOptionsOf,
  resolveConfig,
} from '../../src/preset/effective-config.js';
import { createFileconv } from '../../src/preset/index.js';
import { firstLimitTrips, limitsLine, sharedAddressWarning } from '../support/limits-notice.js';
import { createServiceLog, logFormatOf } from '../support/logging.js';
import { startMetricsEndpoint } from '../support/metrics-flag.js';

export { dataDirOf, loadOrCreateSecret } from '../../src/preset/index.js';

/**
 * The command line of `fileconv serve` (the settings table's names): flags go before environment
 * variables, which go before the config file, which goes before the defaults.
 */
export type ServeFlags = ConfigFlags;

export interface RunningService {
  server: Server;
  engine: JobEngine;
  url: string;
  /** Graceful stop: no new requests, conversions get `graceSeconds` to finish, the rest stay queued. */
  stop(): Promise<void>;
  /** Which backends it runs on, for the start-up log. */
  description: string;
  /** Where Prometheus scrapes, with --metrics-port. */
  metricsUrl: string | undefined;
  /** Whether rate limits and quotas apply. */
  limits: boolean;
  /** The plans in force (a plans file merged into the defaults, or the defaults). */
  plans: PlanTable;
  /** The settings it runs with (flags, environment, config file, defaults). */
  config: EffectiveConfig;
}

export async function startService(flags: ServeFlags): Promise<RunningService> {
  // Every setting, from flags, environment, config file or default; a bad one fails here, before
  // anything is opened.
  const config = await resolveConfig(flags);
  // This process is fileconv's: libvips' reuse cache would only hold memory (releaseSharpCache).
  releaseSharpCache();
  // The same assembly a host gets from fileconv/preset: every converter, the embedded stores (or
  // Redis + S3), counters, keys, the signing secret, refunds and webhooks.
  const fileconv = await createFileconv(fileconvOptionsOf(config, { worker: config.workers.enabled }));
  const engine = fileconv.jobs;
  // Load every converter and ask whether its engine is installed before the first request, not
  // during it: loading parses large modules (pdf.js, exceljs, playwright) on the event loop, and
  // the first /api/health, which lists the answers, took 1.5 s (found by the soak). Cached after.
  // Bounded: an engine probe that hangs must not keep the service from ever listening. An API
  // node (--no-worker) converts nothing and plans on declared edges: it loads no engine at all.
  if (config.workers.enabled) {
    await Promise.race([
      engine.converters().catch(() => {}),
      sleep(AVAILABILITY_WAIT_MS, undefined, { ref: false }),
    ]);
  }

  const { server: settings } = config;
  const log = await createServiceLog({ format: logFormatOf(settings.logFormat), requests: settings.log });
  const unwatch = log.watch(engine);
  const metrics = await startMetricsEndpoint(engine, config.metricsPort, settings.host).catch(
    async (error: unknown) => {
      unwatch();
      await fileconv.close({ graceMs: 0 });
      throw error;
    },
  );
  // The node:http adapter: of the adapters that pass the HTTP suite, the fastest (npm run bench).
  const limitTrip = firstLimitTrips();
  const handler = createNodeHandler(engine, {
    ...fileconv.http,
    onRequest: (event) => {
      fileconv.http.onRequest?.(event); // OpenTelemetry spans, when @opentelemetry/api is installed
      log.request(event);
      metrics.recordRequest(event);
      const tripped = limitTrip(event);
      if (tripped) log.notice(tripped);
    },
    onError: (error) => log.error('request failed', error),
  });

  const { port, host } = settings;
  const server = await new Promise<Server>((resolveServer, reject) => {
    const listening = createServer(
      {
        // Node's 300 s cap on a whole request would cut a 2 GB upload over a slow link; an upload
        // is bounded by its size limit and by an idle timeout while its body arrives instead.
        // Headers must still arrive within 60 s (slowloris).
        requestTimeout: 0,
        headersTimeout: 60_000,
      },
      handler,
    ).listen(port, host, () => resolveServer(listening));
    listening.on('request', closeIdleUploads);
    listening.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new FileconvError(
              'INVALID_REQUEST',
              `Port ${port} is in use: pass --port or set FILECONV_PORT.`,
              {
                cause: error,
              },
            )
          : error,
      );
    });
  }).catch(async (error: unknown) => {
    // Nothing was served: give the data dir (and its lock) back at once.
    await metrics.close();
    await fileconv.close({ graceMs: 0 });
    unwatch();
    throw error;
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${boundPort}`;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      await fileconv.close({ graceMs: config.workers.graceSeconds * 1000 });
      unwatch();
      await metrics.close();
      server.closeAllConnections();
      await closed;
    })();
    return stopping;
  };
  return {
    server,
    engine,
    url,
    stop,
    description: fileconv.backends.description,
    metricsUrl: metrics.url,
    limits: fileconv.limits,
    plans: fileconv.http.plans ?? DEFAULT_PLANS,
    config,
  };
}

/** Longest serve waits for the engines' answers before it listens anyway (they are cached once in). */
const AVAILABILITY_WAIT_MS = 10_000;

/** A request body that stops arriving for this long is cut (its upload refunded and removed). */
const BODY_IDLE_MS = 120_000;

/**
 * Cuts a request whose body stops arriving for BODY_IDLE_MS: a client trickling nothing cannot
 * hold a connection open. Only while the body arrives: Flow B's convert then waits for its job
 * with nothing to send, for as long as the conversion takes.
 */
function closeIdleUploads(request: IncomingMessage): void {
  const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
  if (request.complete || (chunked === undefined && (length ?? '0') === '0')) return;
  const socket = request.socket;
  // A listener of its own, removed with the timer: a keep-alive socket carries many uploads, and
  // setTimeout(ms, callback) would add one 'timeout' listener per request and never drop it.
  const cut = () => socket.destroy();
  socket.setTimeout(BODY_IDLE_MS);
  socket.on('timeout', cut);
  const done = () => {
    socket.setTimeout(0);
    socket.removeListener('timeout', cut);
  };
  request.once('end', done);
  request.once('close', done);
}

/** Runs until SIGTERM or SIGINT, then stops gracefully. */
export async function runServe(flags: ServeFlags): Promise<void> {
  const service = await startService(flags);
  const { config } = service;
  const workers = config.workers.enabled ? `${config.workers.concurrency} conversions at once` : 'no workers';
  if (config.configFile) console.log(`fileconv: settings from ${config.configFile}`);
  console.log(`fileconv: serving on ${service.url} (${service.description}; ${workers})`);
  if (config.server.web) console.log(`fileconv: web converter at ${service.url}/`);
  if (service.metricsUrl) console.log(`fileconv: Prometheus metrics at ${service.metricsUrl}`);
  if (config.cors) {
    const origins = config.cors.origins === '*' ? 'any origin' : config.cors.origins.join(', ');
    console.log(`fileconv: CORS: browser apps on ${origins} may call the API`);
  }
  const { maxQueuedJobs } = config.server;
  if (maxQueuedJobs !== undefined) {
    console.log(
      `fileconv: at most ${maxQueuedJobs} jobs wait in the queue; past that, new jobs are refused (503 OVERLOADED)`,
    );
  }
  console.log(limitsLine(service.plans, { on: service.limits, source: config.sources.limits ?? 'default' }));
  const shared = sharedAddressWarning({
    limits: service.limits,
    host: config.server.host,
    trustProxy: config.server.trustProxy,
  });
  if (shared) console.log(shared);
  await untilSignal(service.stop, config.workers.graceSeconds);
}

/** Waits for SIGTERM or SIGINT, then runs `stop`; says what it is doing. */
export async function untilSignal(stop: () => Promise<void>, graceSeconds: number): Promise<void> {
  await new Promise<void>((done) => {
    const onSignal = (signal: string) => {
      console.log(`fileconv: ${signal}: finishing running conversions (up to ${graceSeconds} s)...`);
      stop().then(done, (error: unknown) => {
        console.error(error);
        done();
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  console.log('fileconv: stopped; unfinished jobs stay queued for the next start.');
}
