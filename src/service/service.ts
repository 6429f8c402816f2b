/**
 * The HTTP API of the service specification, written once against the framework-neutral
 * HttpExchange: Flow A (upload grant, PUT, job, polling), Flow B (multipart upload, convert,
 * download), GET /api/formats, /api/usage, /api/health, the OpenAPI document and docs page, and
 * the web converter page. It owns access (client IP, API keys, a host's sign-in, rate limits and
 * quotas), quota charge and refund, signed and presigned URLs, multipart, error mapping, and
 * compression of the answers where it pays (compression.ts).
 * The adapters (node:http, Express, Fastify, the fetch handler) only translate requests and
 * answers; none of them holds a rule of its own.
 */

import { randomUUID } from 'node:crypto';
import { FileconvError } from '../core/errors.js';
import { maxQueuedJobsOf } from '../core/policy/overload.js';
import { DEFAULT_PLANS, type PlanTable } from '../core/policy/plans.js';
import type { CounterStore, IdempotencyStore, KeyStore } from '../core/ports/index.js';
import { signingKey } from '../core/signing.js';
import { type JobPortName, missingPortsError } from '../engine/job-ports.js';
import type { ReadinessOptions } from '../engine/readiness.js';
import { type AccessSettings, type Authenticator, admit, anonymousCall, compileTrust } from './access.js';
import { compressAnswer } from './compression.js';
import { type CorsOptions, createCorsPolicy } from './cors.js';
import { docsRoutes } from './docs-routes.js';
import type { HttpAnswer, HttpExchange } from './exchange.js';
import { flowARoutes } from './flow-a-routes.js';
import { flowBRoutes } from './flow-b-routes.js';
import { errorAnswer, isRefusal, toHttpError } from './http-errors.js';
import { createIdempotencyGuard, type IdempotencySettings } from './idempotency.js';
import type { LinkSettings } from './links.js';
import { multipartRoutes } from './multipart-routes.js';
import type { RouteContext } from './route-context.js';
import { routeTable } from './routes.js';
import type { ServiceEngine } from './service-engine.js';
import { serviceRoutes } from './service-routes.js';
import { tusRoutes } from './tus-routes.js';
import { webConverterRoutes } from './web-routes.js';

export type { Authenticator, AuthRequest } from './access.js';
export type { CorsOptions } from './cors.js';
export type { IdempotencySettings } from './idempotency.js';
export { UPLOAD_URL_EXPIRES_IN } from './route-context.js';

export interface HttpServiceOptions {
  /**
   * Secret (>= 32 bytes) that signs local upload and download URLs. Required unless the storage
   * presigns both (S3). Keep it stable across restarts and shared by every API node.
   */
  signingSecret?: string | Uint8Array;
  /** The service's public base URL (e.g. https://api.example.com/convert) for links behind a proxy. Default: from each request. */
  publicUrl?: string;
  /**
   * Compress answers where it pays (JSON, the docs page, the web page; never a download), br or
   * gzip as the client accepts. Default true, except in createFetchHandler: web frameworks
   * compress for themselves there, and Next.js drops a route's Content-Encoding header.
   */
  compression?: boolean;
  /** The plans: limits, priorities, batch. Default DEFAULT_PLANS (the specification's values). */
  plans?: PlanTable;
  /** Where API keys live; without it, requests with an Authorization header are refused (401). */
  keys?: KeyStore;
  /** Counters for rate limits and quotas; without it nothing is rate-limited or counted. */
  counters?: CounterStore;
  /**
   * Where Idempotency-Key claims and answers live (the POSTs that create something run once per
   * key and caller; a retry gets the first answer, see idempotency.ts): a store, or the store
   * with how long answers are replayed and how long a concurrent retry waits. Default: an
   * in-memory store of this service, right for one API process only; API nodes behind one
   * load balancer must share one (the SQLite store on one machine, the Redis store across).
   */
  idempotency?: IdempotencyStore | IdempotencySettings;
  /** A host's own sign-in, tried before API keys: request -> { accountId, plan } or null. */
  authenticate?: Authenticator;
  /**
   * Which proxies to believe about the client IP (X-Forwarded-For): false (default: the socket
   * address, so a spoofed header changes nothing), true, a hop count, or addresses/subnets.
   */
  trustProxy?: boolean | number | string | readonly string[];
  /** Lifetime of download URLs, seconds. Default 3600. */
  downloadUrlExpiresIn?: number;
  /** How long POST /api/convert waits for its conversion, ms. Default 600000. */
  convertTimeoutMs?: number;
  /**
   * The most jobs that may wait in the queue (queued, not yet running): past it, POST
   * /api/jobs/create, /api/jobs/batch and /api/convert answer 503 OVERLOADED with Retry-After and
   * charge nothing. Counted by the engine's queue (Queue.size: the in-process and BullMQ queues
   * count; on Redis the bound holds across API nodes, give or take a burst of concurrent creates);
   * a queue that cannot count refuses nothing. Default: no bound.
   */
  maxQueuedJobs?: number;
  /** Clock for limit windows, epoch ms (tests). Default Date.now. */
  now?: () => number;
  /**
   * Called with every unexpected (5xx) error and its cause, for the host's log (not with a 503
   * OVERLOADED of `maxQueuedJobs`: a refusal, in the request log), and once with a
   * CONFIG error when the engine's queue is in-process and no worker has started 5 s after the
   * service was made (engine.start() forgotten). Default: console.error.
   */
  onError?: (error: unknown) => void;
  /** Called once per answered request (logs, metrics). Must not throw. */
  onRequest?: (event: RequestEvent) => void;
  /**
   * Serve the web converter page at the service's root (GET /, plus GET /web/app.js and
   * /web/style.css): pick or drop a file, choose a target, watch upload and conversion progress,
   * download the result, all through Flow A. Default false: an embedded API stays API-only.
   */
  webConverter?: boolean;
  /**
   * GET /api/ready (readiness; no key, no rate limit): each check's deadline and the converters
   * that must be available. Default: 2 s, none required.
   */
  readiness?: ReadinessOptions;
  /**
   * CORS, for browser apps on other origins: which origins, credentials, preflight cache time.
   * Default off (no CORS headers: browsers only let same-origin pages read the answers).
   */
  cors?: CorsOptions;
}

/** One answered request, as `onRequest` sees it. */
export interface RequestEvent {
  requestId: string;
  method: string;
  /** The route's pattern ('/api/jobs/:jobId'), or null when no route matched. */
  route: string | null;
  /** The request's path and query as sent (mount included), URL signatures redacted. */
  url: string;
  /** The client address, as access control determined it (proxies the host trusts applied). */
  ip: string;
  status: number;
  /** The error code of a refused or failed request. */
  code: string | undefined;
  durationMs: number;
  /** The caller: `account:<id>` or `ip:<address>`. */
  owner: string;
  /** Jobs the request created or read (their ids tie the request to the job's own log lines). */
  jobIds: string[];
  /**
   * Bytes of the file the request stored (POST /api/upload, the upload PUT of Flow A); 0 for
   * every other request and for an upload that was refused.
   */
  uploadedBytes: number;
}

export interface HttpService {
  /** Every route the service answers (`:name` marks a path parameter); `idempotent` where it takes an Idempotency-Key. */
  readonly routes: readonly { method: string; path: string; idempotent?: true }[];
  /** The answer to one request, or null when no route of the service matches it (the host's next handler may). */
  handle(exchange: HttpExchange): Promise<HttpAnswer | null>;
  /** For adapters: a failure while streaming an answer's body (the status is already sent). */
  reportError(error: unknown): void;
}

/** Request ids accepted from a client or proxy: short, printable, no separators a log could split on. */
const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** How long after the service is made an in-process queue may still lack its worker before onError hears of it. */
const WORKER_GRACE_MS = 5000;

/**
 * What the service falls back on when the host gives it nothing, supplied by the layer that
 * implements ports (src/adapters/http/service.ts): the service itself keeps no store of its own.
 */
export interface ServiceDefaults {
  /** The Idempotency-Key store of a service given none, made on the first keyed request. */
  idempotencyStore(): IdempotencyStore;
}

/**
 * The service over `engine`, with `defaults` for what `options` leave out. Hosts call
 * createHttpService (fileconv/http) or an adapter's factory, which check their arguments first
 * (mount-arguments.ts: a missing signingSecret among them) and pass the adapters' defaults.
 */
export function buildHttpService(
  engine: ServiceEngine,
  options: HttpServiceOptions,
  defaults: ServiceDefaults,
): HttpService {
  // Every route but the formats list needs all three: fail here, not on the first upload.
  const { ports } = engine;
  const missing = ports
    ? (['storage', 'jobs', 'queue'] as const).filter((name: JobPortName) => !ports[name])
    : [];
  if (missing.length > 0) {
    throw missingPortsError('createHttpService', missing);
  }
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const compression = options.compression ?? true;
  if (engine.workerStatus() === 'none') warnWithoutWorker(engine, onError);
  const now = options.now ?? Date.now;
  const access: AccessSettings = {
    plans: options.plans ?? DEFAULT_PLANS,
    keys: options.keys,
    counters: options.counters,
    authenticate: options.authenticate,
    trust: compileTrust(options.trustProxy),
    now,
    onError,
  };
  const links: LinkSettings = {
    storage: engine.storage,
    key: options.signingSecret === undefined ? undefined : signingKey(options.signingSecret),
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    downloadExpiresIn: options.downloadUrlExpiresIn ?? 3600,
    nowSeconds: () => Math.floor(now() / 1000),
  };
  const ctx: RouteContext = {
    engine,
    access,
    links,
    convertTimeoutMs: options.convertTimeoutMs ?? 600_000,
    maxQueuedJobs: maxQueuedJobsOf(options.maxQueuedJobs, 'fileconv HTTP'),
    readiness: options.readiness ?? {},
    now,
  };
  const routeList = [
    ...(options.webConverter ? webConverterRoutes(ctx) : []),
    ...flowARoutes(ctx),
    ...multipartRoutes(ctx),
    ...flowBRoutes(ctx),
    // tus needs a storage that stores uploads in pieces; without one /api/tus is not there (404).
    ...(engine.storage?.resumable ? tusRoutes(ctx) : []),
    ...serviceRoutes(ctx),
    ...docsRoutes(),
  ];
  const routes = routeTable(routeList);
  const idempotency = createIdempotencyGuard(idempotencySettingsOf(options.idempotency, defaults), onError);
  const onRequest = options.onRequest;
  const cors = options.cors === undefined ? undefined : createCorsPolicy(options.cors);

  /** Whether a path is one of the service's (any method), so its preflight is ours to answer. */
  function owns(path: string): boolean {
    try {
      const { found, allowed } = routes.match('OPTIONS', path);
      return found !== null || allowed.length > 0;
    } catch {
      return true; // a route's parameter that is not valid percent-encoding: still our path
    }
  }

  return {
    routes: routeList.map(({ method, path, idempotent }) => ({
      method,
      path,
      ...(idempotent ? { idempotent } : {}),
    })),
    reportError: onError,
    async handle(exchange) {
      const started = performance.now();
      const given = exchange.header('x-request-id');
      const requestId = given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
      const call = anonymousCall(access, exchange, links.publicUrl);
      let pattern: string | null = null;
      let answer: HttpAnswer;
      const preflight = cors?.isPreflight(exchange) === true;
      if (cors && preflight) {
        // Before routing and admit(): a browser's preflight carries no key and spends no limit.
        if (!owns(exchange.path)) return null;
        answer = cors.preflight(exchange);
      } else {
        try {
          const { found, allowed } = routes.match(exchange.method, exchange.path);
          if (!found) {
            // Not ours: a host mounting the service beside its own routes gets the request back.
            if (allowed.length === 0) return null;
            call.headers.allow = [
              ...new Set(allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]))),
            ].join(', ');
            throw new FileconvError('NOT_FOUND', `No such endpoint: ${exchange.method} is not allowed here.`);
          }
          pattern = found.route.path;
          if (exchange.bodyTakenByHost) throw bodyTakenByHostError();
          Object.assign(call.headers, found.route.headers);
          if (!found.route.public) await admit(access, call, { signed: found.route.signed === true });
          const { route, params } = found;
          // One unit of work: a request that fails gives back whatever it charged (metering.ts).
          answer = await call.meter.run(() =>
            route.idempotent ? idempotency.handle(call, route, params) : route.handle(call, params),
          );
          answer.headers = { ...answer.headers, ...call.headers };
        } catch (error) {
          answer = failure(error, call.headers);
        }
      }
      // Errors too: a browser hides an answer without them from the page, 429s and 413s included.
      if (cors && !preflight && !answer.gone) cors.decorate(exchange, answer.headers);
      // Before HEAD drops the body: HEAD tells the same Content-Encoding and length as GET.
      if (compression) {
        answer = await compressAnswer(answer, exchange.header('accept-encoding')).catch((error: unknown) => {
          onError(error);
          return answer;
        });
      }
      if (exchange.method === 'HEAD' && answer.body !== null) {
        if (typeof answer.body === 'object' && 'destroy' in answer.body) answer.body.destroy();
        answer.body = null;
      }
      answer.headers['x-request-id'] = requestId;
      // Every answer is what its Content-Type says: a browser must not sniff a downloaded .txt
      // holding HTML into a page of this origin.
      answer.headers['x-content-type-options'] = 'nosniff';
      onRequest?.({
        requestId,
        method: exchange.method,
        route: pattern,
        url: loggableUrl(exchange),
        ip: call.client.ip,
        status: answer.status,
        code: answer.code,
        durationMs: performance.now() - started,
        owner: call.client.owner,
        jobIds: call.jobIds ?? [],
        uploadedBytes: call.uploadedBytes ?? 0,
      });
      return answer;

      function failure(error: unknown, headers: Record<string, string>): HttpAnswer {
        // The client went away mid-body (an aborted upload): not a fault of ours, and nobody is
        // left to answer. Whatever the body was being stored into has already cleaned up.
        if (exchange.clientGone()) return { status: 499, headers: {}, body: null, gone: true };
        const httpError = toHttpError(error);
        if (httpError.status >= 500 && !isRefusal(httpError.status, httpError.code)) onError(error);
        return errorAnswer(httpError, headers);
      }
    },
  };
}

/** The service's idempotency settings; without a store, the default one, made on the first keyed request. */
function idempotencySettingsOf(
  given: HttpServiceOptions['idempotency'],
  defaults: ServiceDefaults,
): Parameters<typeof createIdempotencyGuard>[0] {
  if (given === undefined) return { store: () => defaults.idempotencyStore() };
  const isStore = (value: unknown): value is IdempotencyStore =>
    typeof value === 'object' && value !== null && typeof (value as IdempotencyStore).claim === 'function';
  if (isStore(given)) return { store: given };
  const settings = given as Partial<IdempotencySettings> | null;
  const positive = (value: unknown) => value === undefined || (typeof value === 'number' && value > 0);
  if (
    !isStore(settings?.store) ||
    !positive(settings.ttlMs) ||
    !positive(settings.waitMs) ||
    !positive(settings.leaseMs)
  ) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      'fileconv HTTP: option "idempotency" must be an IdempotencyStore or { store, ttlMs?, waitMs?, leaseMs? } with positive ms.',
    );
  }
  return settings as IdempotencySettings;
}

/**
 * A host's body parser in front of the service (express.urlencoded(), multer), or a handler that
 * read a fetch Request, took the body: the host's mistake, said to its log (onError, as every
 * 5xx) and to the caller at once.
 */
function bodyTakenByHostError(): FileconvError {
  return new FileconvError(
    'CONFIG',
    'The request body was already read before fileconv saw it (by middleware in front of it such as express.urlencoded() or multer, or a handler that called request.json()): mount fileconv before body parsers such as express.json(), or give them only to your own routes, and pass fileconv the request unread.',
  );
}

/**
 * A host that mounts the service and forgets engine.start() hears of it once, after a grace in
 * which a start() right after mounting goes unremarked; until then each job creation is refused
 * (UNAVAILABLE) and GET /api/ready fails its `worker` check.
 */
function warnWithoutWorker(engine: ServiceEngine, onError: (error: unknown) => void): void {
  const timer = setTimeout(() => {
    if (engine.workerStatus() !== 'none') return;
    onError(
      new FileconvError(
        'CONFIG',
        `createHttpService: no worker started within ${WORKER_GRACE_MS / 1000} s of mounting and the engine's queue is in-process: jobs created over HTTP are refused (503 UNAVAILABLE) and GET /api/ready answers 503 until engine.start() is called.`,
      ),
    );
  }, WORKER_GRACE_MS);
  timer.unref();
}

/** Query parameters that are credentials: never written to a log. */
const SECRET_PARAMS = new Set(['signature', 'x-amz-signature', 'x-amz-credential', 'x-amz-security-token']);

function loggableUrl(exchange: HttpExchange): string {
  const path = `${exchange.mountPath}${exchange.path}`;
  if (exchange.query.size === 0) return path;
  const query = new URLSearchParams();
  for (const [name, value] of exchange.query) {
    query.append(name, SECRET_PARAMS.has(name.toLowerCase()) ? 'REDACTED' : value);
  }
  return `${path}?${query}`;
}
