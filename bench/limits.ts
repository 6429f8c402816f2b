/**
 * What rate limits, quotas and API keys add to a request: the same route served by a router
 * without `counters`/`keys` (plain: the access middleware still runs, finds nothing to count and
 * serves the Free plan) and by one with memory counters and a memory key store, called with a
 * valid API key (limited: per-IP rate limit, key lookup by SHA-256, monthly API-call quota, five
 * extra response headers). Both routers share one engine and serve one completed job each.
 *
 * Method, two measurements in one run:
 *
 * 1. Over HTTP: GET /api/jobs/{id} on 127.0.0.1, one keep-alive connection per router, strictly
 *    sequential requests (no queueing, so a request's time is its latency and nothing else),
 *    timed with performance.now() around each request on the client. Blocks of
 *    BENCH_LIMITS_REQUESTS requests (default 2000) alternate plain/limited for BENCH_ROUNDS
 *    rounds after one warm-up block each, so load drift on the shared machine hits both alike.
 *    Client and servers share the process (and its event loop), which adds the same client cost
 *    to both sides; the difference of the medians is what the checks add end to end, including
 *    sending the Authorization header and parsing the extra response headers.
 * 2. The access middleware alone, called directly with a mock request and response: batches of
 *    1000 calls timed together (a single call is near the timer's resolution), median per call
 *    over the batches, plain settings against limited settings.
 *
 * Staying under the limits honestly: the per-IP limit (60 per minute for this route) is fixed,
 * not configurable, and rotating client addresses over 127.x.y.z would need a new connection per
 * address, adding connection set-up to the limited side only. Instead the routers and the
 * counter store read a bench clock that moves one minute forward every 50 limited requests, so
 * every request increments a live counter in its window (the hot path a real client takes) and
 * none is refused; the plan table gives Pro a monthly API-call quota no run reaches. Every
 * response is checked to be 200, so no refusal (cheaper than an answer) flatters the numbers.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { createMemoryCounterStore } from '../src/adapters/counters/memory.js';
import { createHttpRouter } from '../src/adapters/http/express.js';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryKeyStore } from '../src/adapters/keys/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { createSharpConverter } from '../src/converters/sharp/index.js';
import { createApiKey } from '../src/core/policy/api-keys.js';
import { definePlans } from '../src/core/policy/plans.js';
import { createEngine, type Engine } from '../src/index.js';
import { type AccessSettings, admit, anonymousCall, compileTrust } from '../src/service/access.js';
import { listenLocal, portOf } from './http-app.js';
import { send } from './http-client.js';
import { median } from './stats.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/fixture.png', import.meta.url));
/** Limited requests per bench minute: under the 60-per-minute limit of the route's class. */
const REQUESTS_PER_MINUTE = 50;
const MIDDLEWARE_BATCH = 1000;

/** A completed png -> webp job owned by `owner`. */
async function completedJob(engine: Engine, owner: string): Promise<string> {
  const file = await engine.uploadFile({
    owner,
    fileName: 'bench.png',
    body: await readFile(FIXTURE),
    contentType: 'image/png',
  });
  const job = await engine.createJob({ owner, fileId: file.id, targetFormat: 'webp' });
  const done = await engine.waitForJob(job.id);
  if (done.status !== 'completed') throw new Error(`bench job ${done.status}: ${done.error?.message}`);
  return job.id;
}

/** Runs `count` sequential GETs on one keep-alive connection; returns each latency in ms. */
async function block(
  url: string,
  count: number,
  agent: Agent,
  headers: Record<string, string>,
  tick: () => void,
) {
  const times: number[] = [];
  for (let n = 0; n < count; n++) {
    tick();
    const started = performance.now();
    const response = await send(url, { agent, headers });
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${response.body.toString()}`);
    // The limited router really counted (rate limit and API calls); the plain one did not.
    const counted = String(response.headers.ratelimit ?? '');
    if (n === 0 && counted.includes('"apiCalls"') !== (headers.authorization !== undefined)) {
      throw new Error(`${url}: unexpected RateLimit header "${counted}"`);
    }
  }
  return times;
}

/** Median time of one access-control call, ms, over `batches` batches of MIDDLEWARE_BATCH calls. */
async function middlewareMedian(
  settings: AccessSettings,
  headers: Record<string, string>,
  batches: number,
  tick: () => void,
): Promise<number> {
  const exchange = {
    method: 'GET',
    path: '/api/jobs/bench',
    mountPath: '',
    query: new URLSearchParams(),
    header: (name: string) => headers[name],
    protocol: 'http',
    remoteAddress: '127.0.0.1',
    body: () => Readable.from([]),
    signal: new AbortController().signal,
    clientGone: () => false,
    raw: null,
  };
  const perCall: number[] = [];
  let call = anonymousCall(settings, exchange, undefined);
  for (let batch = -1; batch < batches; batch++) {
    const started = performance.now();
    for (let n = 0; n < MIDDLEWARE_BATCH; n++) {
      tick();
      call = anonymousCall(settings, exchange, undefined);
      await admit(settings, call);
    }
    // Sanity: the limited settings applied both policies (rate limit and API calls), the plain none.
    const applied = call.entries.length;
    if (applied !== (settings.counters ? 2 : 0))
      throw new Error(`access control applied ${applied} policies`);
    if (batch >= 0) perCall.push((performance.now() - started) / MIDDLEWARE_BATCH);
  }
  return median(perCall);
}

export async function benchLimits(rounds: number): Promise<void> {
  console.log(); // run.ts adds this bench with one line: the blank line before it is ours
  const requests = Number(process.env.BENCH_LIMITS_REQUESTS ?? 2000);
  let clock = Date.now();
  let limitedSent = 0;
  /** Moves the bench clock a minute on every REQUESTS_PER_MINUTE-th limited request. */
  const tick = () => {
    if (++limitedSent % REQUESTS_PER_MINUTE === 0) clock += 60_000;
  };
  const now = () => clock;
  const plans = definePlans({ pro: { apiCallsPerMonth: 1_000_000_000 } });
  const counters = createMemoryCounterStore({ now });
  const keys = createMemoryKeyStore();
  const { key } = await createApiKey(keys, { accountId: 'bench', plan: 'pro', plans });
  const auth = { authorization: `Bearer ${key}` };

  const engine = createEngine({
    converters: [createSharpConverter()],
    storage: createMemoryStorage(),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    tempDir: tmpdir(),
    sweepIntervalMs: 0,
  });
  await engine.start();
  const signingSecret = randomBytes(32);
  const app = (limited: boolean) =>
    express()
      .disable('x-powered-by')
      .use(createHttpRouter(engine, { signingSecret, plans, now, ...(limited ? { counters, keys } : {}) }));
  const plainServer = await listenLocal(app(false));
  const limitedServer = await listenLocal(app(true));
  const agents = [
    new Agent({ keepAlive: true, maxSockets: 1 }),
    new Agent({ keepAlive: true, maxSockets: 1 }),
  ];
  try {
    // The plain router serves the Free client at 127.0.0.1; the limited one the key's account.
    const plainUrl = `http://127.0.0.1:${portOf(plainServer)}/api/jobs/${await completedJob(engine, 'ip:127.0.0.1')}`;
    const limitedUrl = `http://127.0.0.1:${portOf(limitedServer)}/api/jobs/${await completedJob(engine, 'account:bench')}`;
    const plain: number[] = [];
    const limited: number[] = [];
    for (let round = -1; round < rounds; round++) {
      const a = await block(plainUrl, requests, agents[0]!, {}, () => {});
      const b = await block(limitedUrl, requests, agents[1]!, auth, tick);
      if (round >= 0) {
        plain.push(...a);
        limited.push(...b);
      }
    }
    const [plainMs, limitedMs] = [median(plain), median(limited)];
    console.log(
      `${'limits: GET /api/jobs/{id} over HTTP'.padEnd(40)} plain: ${plainMs.toFixed(3)} ms   limited (keyed): ${limitedMs.toFixed(3)} ms   added: ${(limitedMs - plainMs).toFixed(3)} ms   (median of ${plain.length} each)`,
    );

    const settings = (withLimits: boolean): AccessSettings => ({
      plans,
      keys: withLimits ? keys : undefined,
      counters: withLimits ? counters : undefined,
      authenticate: undefined,
      trust: compileTrust(false),
      now,
    });
    const batches = Math.max(20, rounds * 10);
    const bare = await middlewareMedian(settings(false), {}, batches, () => {});
    const checked = await middlewareMedian(settings(true), auth, batches, tick);
    console.log(
      `${'limits: access control alone'.padEnd(40)} plain: ${bare.toFixed(4)} ms   limited (keyed): ${checked.toFixed(4)} ms   added: ${(checked - bare).toFixed(4)} ms   (median of ${batches} x ${MIDDLEWARE_BATCH} calls)`,
    );
  } finally {
    for (const agent of agents) agent.destroy();
    for (const server of [plainServer, limitedServer]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await engine.close({ graceMs: 1000 });
    await counters.close();
  }
}
