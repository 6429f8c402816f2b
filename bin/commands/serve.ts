/**
 * `fileconv serve` (what `npm start` runs): the whole service on one machine with nothing to set
 * up. Filesystem storage and job store under the data dir, in-process queue and workers, a
 * signing secret created on first start and kept in the data dir. With REDIS_URL (and S3_BUCKET)
 * it is one API node of many, with or without its own workers (--no-worker). SIGTERM/SIGINT stop
 * taking requests, let running conversions finish within a grace period, leave the rest queued.
 * Plans come from a JSON file (--plans, $FILECONV_PLANS); --no-limits ($FILECONV_LIMITS=off)
 * turns rate limits and quotas off for an internal deployment behind its own access control.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createNodeHandler } from '../../adapters/http/node.js';
import type { BackendFlags } from '../../adapters/preset/backends.js';
import { createFileconv, dataDirOf, loadPlansFile } from '../../adapters/preset/index.js';
import { type Engine, FileconvError } from '../../src/index.js';
import { createServiceLog, logFormatOf } from '../logging.js';
import { startMetricsEndpoint } from '../metrics-flag.js';

export { dataDirOf, loadOrCreateSecret } from '../../adapters/preset/index.js';

export interface ServeFlags extends BackendFlags {
  port?: number;
  host?: string;
  data?: string;
  publicUrl?: string;
  concurrency?: number;
  worker?: boolean;
  graceSeconds?: number;
  retentionHours?: number;
  /** Proxies whose X-Forwarded-For is believed: 'loopback', addresses, subnets, or a hop count. */
  trustProxy?: string;
  log?: boolean;
  /** json (default when stdout is not a terminal) or pretty. */
  logFormat?: string;
  /** The web converter page at the service's root URL; false with --no-web. Default on. */
  web?: boolean;
  /** Engines GET /api/ready requires, comma-separated. */
  readyEngines?: string;
  /** Prometheus metrics (GET /metrics) on this port of their own. */
  metricsPort?: number;
  /** A JSON file of plan overrides merged into the default plans (default $FILECONV_PLANS). */
  plans?: string;
  /** false with --no-limits: no rate limits and no quotas. Default: $FILECONV_LIMITS, else on. */
  limits?: boolean;
}

export interface RunningService {
  server: Server;
  engine: Engine;
  url: string;
  /** Graceful stop: no new requests, conversions get `graceSeconds` to finish, the rest stay queued. */
  stop(): Promise<void>;
  /** Which backends it runs on, for the start-up log. */
  description: string;
  /** Where Prometheus scrapes, with --metrics-port. */
  metricsUrl: string | undefined;
  /** Whether rate limits and quotas apply. */
  limits: boolean;
}

export async function startService(flags: ServeFlags): Promise<RunningService> {
  // The same assembly a host gets from fileconv/preset: every converter, the embedded stores (or
  // Redis + S3), counters, keys, the signing secret, refunds and webhooks.
  // --plans before $FILECONV_PLANS (which createFileconv reads when no table is given).
  const plans = flags.plans === undefined ? undefined : await loadPlansFile(flags.plans);
  const fileconv = await createFileconv({
    dataDir: dataDirOf(flags.data),
    ...(plans ? { plans } : {}),
    // Commander sets `limits` true unless --no-limits: only its false overrides $FILECONV_LIMITS.
    ...(flags.limits === false ? { limits: false } : {}),
    ...(flags.redisUrl === undefined ? {} : { redisUrl: flags.redisUrl }),
    ...(flags.s3Bucket === undefined ? {} : { s3Bucket: flags.s3Bucket }),
    worker: flags.worker !== false,
    concurrency: flags.concurrency,
    resultTtlMs: flags.retentionHours === undefined ? undefined : flags.retentionHours * 3_600_000,
  });
  const { engine } = fileconv;

  const log = await createServiceLog({ format: logFormatOf(flags.logFormat), requests: flags.log !== false });
  const unwatch = log.watch(engine);
  const metrics = await startMetricsEndpoint(engine, flags.metricsPort, flags.host).catch(
    async (error: unknown) => {
      unwatch();
      await fileconv.close({ graceMs: 0 });
      throw error;
    },
  );
  // The node:http adapter: of the adapters that pass the HTTP suite, the fastest (npm run bench).
  const handler = createNodeHandler(engine, {
    ...fileconv.http,
    publicUrl: flags.publicUrl ?? process.env.FILECONV_PUBLIC_URL,
    trustProxy: parseTrustProxy(flags.trustProxy ?? process.env.FILECONV_TRUST_PROXY),
    webConverter: flags.web !== false,
    readiness: { requiredConverters: namesOf(flags.readyEngines ?? process.env.FILECONV_READY_ENGINES) },
    onRequest: (event) => {
      fileconv.http.onRequest?.(event); // OpenTelemetry spans, when @opentelemetry/api is installed
      log.request(event);
      metrics.recordRequest(event);
    },
    onError: (error) => log.error('request failed', error),
  });

  const port = flags.port ?? Number(process.env.PORT ?? 3000);
  const host = flags.host ?? process.env.HOST ?? '0.0.0.0';
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
          ? new FileconvError('INVALID_REQUEST', `Port ${port} is in use: pass --port or set PORT.`, {
              cause: error,
            })
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
      await fileconv.close({ graceMs: (flags.graceSeconds ?? 30) * 1000 });
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
  };
}

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
  socket.setTimeout(BODY_IDLE_MS, () => socket.destroy());
  request.once('end', () => socket.setTimeout(0));
  request.once('close', () => socket.setTimeout(0));
}

/** 'sharp, libreoffice' -> ['sharp', 'libreoffice']. */
function namesOf(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

/** `--trust-proxy` as typed: 'true', a hop count ('1'), or addresses/subnets/names ('loopback, 10.0.0.0/8'). */
function parseTrustProxy(value: string | undefined): boolean | number | string | undefined {
  if (value === undefined || value === '' || value === 'false') return undefined;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Runs until SIGTERM or SIGINT, then stops gracefully. */
export async function runServe(flags: ServeFlags): Promise<void> {
  const service = await startService(flags);
  const workers = flags.worker === false ? 'no workers' : `${flags.concurrency ?? 2} conversions at once`;
  console.log(`fileconv: serving on ${service.url} (${service.description}; ${workers})`);
  if (flags.web !== false) console.log(`fileconv: web converter at ${service.url}/`);
  if (service.metricsUrl) console.log(`fileconv: Prometheus metrics at ${service.metricsUrl}`);
  if (!service.limits) {
    console.log(
      'fileconv: limits off (--no-limits or FILECONV_LIMITS=off): no rate limits and no quotas; keep this service behind your own access control',
    );
  }
  await untilSignal(service.stop, flags.graceSeconds ?? 30);
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
