/**
 * The HTTP API of the service specification as an Express 5 Router, mountable under any prefix
 * in an existing app: Flow A (upload grant, PUT, job, polling), Flow B (multipart upload,
 * convert, download), plus GET /api/formats, GET /api/health and DELETE /api/jobs/{jobId}.
 * Every route is a thin layer over the engine; errors answer `{ error: { code, message } }`.
 */
import express, { Router } from 'express';
import type { Engine } from '../../src/engine.js';
import { FileconvError } from '../../src/errors.js';
import { DEFAULT_PLANS, type PlanTable } from '../../src/policy/plans.js';
import type { CounterStore, KeyStore } from '../../src/ports.js';
import { signingKey } from '../../src/signing.js';
import { type AccessSettings, type Authenticator, accessMiddleware, compileTrust } from './access.js';
import { addDocsRoutes } from './docs-routes.js';
import { addFlowARoutes } from './flow-a-routes.js';
import { addFlowBRoutes } from './flow-b-routes.js';
import { errorMiddleware } from './http-errors.js';
import type { LinkSettings } from './links.js';
import type { RouteContext } from './route-context.js';
import { addServiceRoutes } from './service-routes.js';
import { addWebConverterRoutes } from './web-routes.js';

export { UPLOAD_URL_EXPIRES_IN } from './route-context.js';

export interface HttpRouterOptions {
  /**
   * Secret (>= 32 bytes) that signs local upload and download URLs. Required unless the storage
   * presigns both (S3). Keep it stable across restarts and shared by every API node.
   */
  signingSecret?: string | Uint8Array;
  /** The router's public base URL (e.g. https://api.example.com/convert) for links behind a proxy. Default: from each request. */
  publicUrl?: string;
  /** The plans: limits, priorities, batch. Default DEFAULT_PLANS (the specification's values). */
  plans?: PlanTable;
  /** Where API keys live; without it, requests with an Authorization header are refused (401). */
  keys?: KeyStore;
  /** Counters for rate limits and quotas; without it nothing is rate-limited or counted. */
  counters?: CounterStore;
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
  /** Clock for limit windows, epoch ms (tests). Default Date.now. */
  now?: () => number;
  /** Called with every unexpected (5xx) error and its cause, for the host's log. Default: console.error. */
  onError?: (error: unknown) => void;
  /**
   * Serve the web converter page at the router's root (GET /, plus GET /web/app.js and
   * /web/style.css): pick or drop a file, choose a target, watch upload and conversion progress,
   * download the result, all through Flow A. Default false: an embedded API stays API-only.
   */
  webConverter?: boolean;
}

export function createHttpRouter(engine: Engine, options: HttpRouterOptions = {}): Router {
  const now = options.now ?? Date.now;
  const access: AccessSettings = {
    plans: options.plans ?? DEFAULT_PLANS,
    keys: options.keys,
    counters: options.counters,
    authenticate: options.authenticate,
    trust: compileTrust(options.trustProxy),
    now,
  };
  const links: LinkSettings = {
    storage: engine.storage,
    key: options.signingSecret === undefined ? undefined : signingKey(options.signingSecret),
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    downloadExpiresIn: options.downloadUrlExpiresIn ?? 3600,
    nowSeconds: () => Math.floor(now() / 1000),
  };
  if (!links.key && !(engine.storage?.presignPut && engine.storage.presignGet)) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      'createHttpRouter: signingSecret is required unless storage presigns URLs.',
    );
  }
  const router = Router();
  const ctx: RouteContext = {
    engine,
    access,
    links,
    json: express.json({ limit: '64kb' }),
    convertTimeoutMs: options.convertTimeoutMs ?? 600_000,
    now,
  };
  // The page and its assets come before the access middleware: loading the page needs no key
  // and spends none of the visitor's per-IP request budget (the API calls it makes still do).
  if (options.webConverter) addWebConverterRoutes(router, ctx);
  router.use(accessMiddleware(access));
  addFlowARoutes(router, ctx);
  addFlowBRoutes(router, ctx);
  addServiceRoutes(router, ctx);
  addDocsRoutes(router, ctx);
  router.use(errorMiddleware(options.onError ?? ((error) => console.error(error))));
  return router;
}
