/**
 * The Idempotency-Key header (IETF httpapi draft "The Idempotency-Key HTTP Header Field", as
 * Stripe does it) on the routes flagged `idempotent`. A key is scoped to the caller (its owner)
 * and the route. The first request with a key runs; a retry with the same key and the same
 * request (method, path, query, content type and body, see body-fingerprint.ts) gets the first
 * answer again, marked `Idempotent-Replayed: true`, without running the route (nothing is
 * stored or charged twice); the same key on another request is 422 IDEMPOTENCY_KEY_REUSED.
 * Concurrent requests with one key: one runs, the others wait for its answer (up to `waitMs`,
 * then 409 IDEMPOTENCY_KEY_IN_USE with Retry-After).
 *
 * Stored (for `ttlMs`): 2xx and 4xx answers with a whole body, except 401, 403 and 429, which
 * a retry may rightly change. Not stored, so a retry runs again: 5xx, a client that left, an
 * answer given before the request body arrived whole, a streamed answer. A running request's
 * claim is a lease it renews; a claim whose process died is taken over when the lease runs out.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { FileconvError } from '../core/errors.js';
import type { IdempotencyStore } from '../core/ports/index.js';
import type { Call } from './access.js';
import { type BodyDigest, digestWholeBody, teeBody } from './body-fingerprint.js';
import type { HttpAnswer, HttpExchange } from './exchange.js';
import { errorAnswer, toHttpError } from './http-errors.js';
import { mediaType } from './json-body.js';
import type { Route } from './routes.js';

export interface IdempotencySettings {
  /** Where keys and answers live; share one (SQLite on one machine, Redis across machines) between API nodes. */
  store: IdempotencyStore;
  /** How long an answer is replayed, ms. Default 86400000 (24 h). */
  ttlMs?: number;
  /** How long a request waits for a concurrent one with its key before 409 IDEMPOTENCY_KEY_IN_USE, ms. Default 10000. */
  waitMs?: number;
  /**
   * A running request's claim lasts this long past its last renewal (renewed every third of it):
   * how soon a key whose process died may be taken over, ms. Default 60000.
   */
  leaseMs?: number;
}

/** What a 409 IDEMPOTENCY_KEY_IN_USE suggests. */
const RETRY_AFTER_SECONDS = 2;
/** A retry's body may be this much longer than the first's (a multipart boundary of another length). */
const LENGTH_SLACK_BYTES = 4096;
/** Visible ASCII, 1-255 characters (a structured-field string's quotes are taken off first). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Statuses a retry may rightly see change: authentication, permission, limits. */
const NOT_STORED = new Set([401, 403, 429]);

export const REPLAYED_HEADER = 'idempotent-replayed';

/** The answer as stored: JSON-safe. */
interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
  base64?: true;
  code?: string;
  jobIds?: string[];
}

export interface IdempotencyGuard {
  /** Runs `route` for `call`, or replays the answer its Idempotency-Key already has. */
  handle(call: Call, route: Route, params: Record<string, string>): Promise<HttpAnswer>;
}

/** The Idempotency-Key of a request, undefined when it has none; INVALID_REQUEST when malformed. */
export function idempotencyKeyOf(exchange: HttpExchange): string | undefined {
  const given = exchange.header('idempotency-key');
  if (given === undefined) return undefined;
  const key = /^"[^"]*"$/.test(given) ? given.slice(1, -1) : given;
  if (!KEY_PATTERN.test(key)) {
    throw new FileconvError(
      'INVALID_REQUEST',
      'The Idempotency-Key header must be 1 to 255 visible ASCII characters (no spaces), sent once.',
      { details: { header: 'Idempotency-Key' } },
    );
  }
  return key;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Method, route and its path parameters (not the path as typed: a trailing slash or another case
 * is the same route), query, content type and encoding: what tells two requests apart besides
 * the body.
 */
function headOf(exchange: HttpExchange, route: Route, params: Record<string, string>): string {
  return sha256(
    [
      route.method,
      route.path,
      JSON.stringify(Object.entries(params).sort()),
      exchange.query.toString(),
      mediaType(exchange.header('content-type')),
      (exchange.header('content-encoding') ?? '').trim().toLowerCase(),
    ].join('\n'),
  );
}

const fingerprintOf = (head: string, body: BodyDigest) => `${head} ${body.rawLength} ${body.digest}`;

function parseFingerprint(fingerprint: string): { head: string; rawLength: number; digest: string } {
  const [head = '', rawLength = '0', digest = ''] = fingerprint.split(' ');
  return { head, rawLength: Number(rawLength), digest };
}

const reused = () =>
  new FileconvError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was used for a different request: send a new key for a new request.',
    { details: { header: 'Idempotency-Key' } },
  );

/** What a route's outcome would be stored as, or null when a retry must run again. */
function storable(
  answer: HttpAnswer | undefined,
  failure: unknown,
  clientGone: boolean,
): StoredAnswer | null {
  if (clientGone) return null;
  const given = answer ?? errorAnswer(toHttpError(failure));
  if (given.gone || given.status >= 500 || NOT_STORED.has(given.status)) return null;
  const { body } = given;
  if (body instanceof Readable) return null;
  const stored: StoredAnswer = {
    status: given.status,
    headers: given.headers,
    body: typeof body === 'string' || body === null ? body : Buffer.from(body).toString('base64'),
  };
  if (body instanceof Uint8Array) stored.base64 = true;
  if (given.code) stored.code = given.code;
  return stored;
}

function replayOf(stored: StoredAnswer): HttpAnswer {
  return {
    status: stored.status,
    headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' },
    body: stored.base64 && stored.body !== null ? Buffer.from(stored.body, 'base64') : stored.body,
    ...(stored.code ? { code: stored.code } : {}),
  };
}

/** `settings.store` may be a function making the store on the first keyed request (the default memory store). */
export function createIdempotencyGuard(
  settings: Omit<IdempotencySettings, 'store'> & { store: IdempotencyStore | (() => IdempotencyStore) },
  onError: (error: unknown) => void,
): IdempotencyGuard {
  let made: IdempotencyStore | undefined;
  const given = settings.store;
  const store = (): IdempotencyStore => {
    made ??= typeof given === 'function' ? given() : given;
    return made;
  };
  const ttlMs = settings.ttlMs ?? 24 * 60 * 60 * 1000;
  const waitMs = settings.waitMs ?? 10_000;
  const leaseMs = settings.leaseMs ?? 60_000;
  /** Requests of this process waiting on a key, woken when this process settles it (others poll). */
  const waiting = new Map<string, Set<() => void>>();

  const wake = (scope: string) => {
    for (const resume of waiting.get(scope) ?? []) resume();
  };
  const pause = (scope: string, ms: number) =>
    new Promise<void>((resolve) => {
      const set = waiting.get(scope) ?? new Set();
      waiting.set(scope, set);
      const resume = () => {
        clearTimeout(timer);
        set.delete(resume);
        if (set.size === 0) waiting.delete(scope);
        resolve();
      };
      const timer = setTimeout(resume, ms);
      set.add(resume);
    });

  async function replay(call: Call, fingerprint: string, answer: string): Promise<HttpAnswer> {
    const first = parseFingerprint(fingerprint);
    const body = await digestWholeBody(call.exchange, first.rawLength + LENGTH_SLACK_BYTES);
    if (!body || body.digest !== first.digest) throw reused();
    const stored = JSON.parse(answer) as StoredAnswer;
    if (stored.jobIds) call.jobIds = stored.jobIds;
    return replayOf(stored);
  }

  async function run(
    call: Call,
    route: Route,
    params: Record<string, string>,
    scope: string,
    token: string,
    head: string,
  ): Promise<HttpAnswer> {
    const original = call.exchange;
    const teed = teeBody(original);
    call.exchange = teed.exchange;
    const renewal = setInterval(() => {
      store().renew(scope, token, leaseMs).catch(onError);
    }, leaseMs / 3);
    renewal.unref();
    let answer: HttpAnswer | undefined;
    let failure: unknown;
    try {
      answer = await route.handle(call, params);
    } catch (error) {
      failure = error;
    } finally {
      clearInterval(renewal);
      call.exchange = original;
    }
    try {
      const stored = storable(answer, failure, original.clientGone());
      // A success whose route never read its body (a POST without one) is digested now.
      const body = stored ? await teed.finish(stored.status < 300) : await teed.finish(false);
      if (stored && body) {
        if (call.jobIds) stored.jobIds = call.jobIds;
        await store().complete(scope, {
          token,
          fingerprint: fingerprintOf(head, body),
          answer: JSON.stringify(stored),
          ttlMs,
        });
      } else {
        await store().release(scope, token);
      }
    } catch (error) {
      // The answer still goes out; at worst a retry runs again once the lease lapses.
      onError(error);
    }
    wake(scope);
    if (answer) return answer;
    throw failure;
  }

  return {
    async handle(call, route, params) {
      const key = idempotencyKeyOf(call.exchange);
      if (key === undefined) return route.handle(call, params);
      const scope = sha256(`${call.client.owner}\n${route.method} ${route.path}\n${key}`);
      const head = headOf(call.exchange, route, params);
      const deadline = Date.now() + waitMs;
      let interval = 25;
      for (;;) {
        const token = randomUUID();
        const found = await store().claim(scope, { token, fingerprint: head, leaseMs });
        if (found.state === 'claimed') return run(call, route, params, scope, token, head);
        if (parseFingerprint(found.fingerprint).head !== head) throw reused();
        if (found.state === 'done') return replay(call, found.fingerprint, found.answer);
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new FileconvError(
            'IDEMPOTENCY_KEY_IN_USE',
            'A request with this Idempotency-Key is still being processed: retry shortly to get its answer.',
            { details: { header: 'Idempotency-Key', retryAfterSeconds: RETRY_AFTER_SECONDS } },
          );
        }
        await pause(scope, Math.min(interval, left));
        interval = Math.min(interval * 2, 500);
      }
    },
  };
}
