/**
 * The additive endpoints: GET /api/usage, GET /api/formats, GET /api/operations, GET /api/health,
 * GET /api/ready.
 * Health and readiness are probed by load balancers and monitors every few seconds, often from
 * one address: they need no key and spend no rate limit.
 */
import { createHash } from 'node:crypto';
import { matchesEtag } from './compression.js';
import { jsonAnswer } from './exchange.js';
import { describeFormats } from './formats-view.js';
import { describeOperations } from './operations-view.js';
import type { RouteContext } from './route-context.js';
import type { Route } from './routes.js';
import { usageView } from './usage-view.js';
import type { HealthResponse, ReadinessResponse } from './wire/index.js';

/** The formats list as it is sent: the JSON once, and its strong validator. */
interface FormatsBody {
  json: Buffer;
  etag: string;
}

export function serviceRoutes(ctx: RouteContext): Route[] {
  let formatsBody: Promise<FormatsBody> | undefined;
  let operationsBody: ReturnType<typeof describeOperations> | undefined;
  return [
    {
      method: 'GET',
      path: '/api/usage',
      async handle({ client }) {
        return jsonAnswer(200, await usageView(ctx.access, client), { 'cache-control': 'no-store' });
      },
    },
    {
      method: 'GET',
      path: '/api/formats',
      async handle({ exchange }) {
        // Serialised once (and compressed once per coding: the buffer is the cache key of
        // compression.ts): the list only changes when the process does.
        formatsBody ??= describeFormats(ctx.engine).then((described) => {
          const json = Buffer.from(JSON.stringify(described), 'utf8');
          const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
          return { json, etag };
        });
        formatsBody.catch(() => {
          formatsBody = undefined;
        });
        const { json, etag } = await formatsBody;
        // A cache revalidates after five minutes; the list changes only when the engines do
        // (a restart with another engine installed), so most revalidations end in a 304.
        const headers = { 'cache-control': 'public, max-age=300', etag, vary: 'Accept-Encoding' };
        if (matchesEtag(exchange.header('if-none-match'), etag)) return { status: 304, headers, body: null };
        return {
          status: 200,
          headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
          body: json,
        };
      },
    },
    {
      method: 'GET',
      path: '/api/operations',
      async handle() {
        operationsBody ??= describeOperations(ctx.engine);
        operationsBody.catch(() => {
          operationsBody = undefined;
        });
        return jsonAnswer(200, await operationsBody, { 'cache-control': 'public, max-age=300' });
      },
    },
    {
      method: 'GET',
      path: '/api/health',
      public: true,
      async handle() {
        // A node that converts nothing (a shared queue and no worker in this process: an API
        // node) lists no engines: its workers check their own, and asking here would load every
        // converter's module on the event loop for an answer about nothing (the soak saw the
        // first health check of a fresh API node take over 5 s).
        const converters = ctx.engine.workerStatus() === 'unknown' ? [] : await ctx.engine.converters();
        return jsonAnswer(
          200,
          {
            status: 'ok',
            engines: converters.map(({ name, ok, version, reason }) => ({
              name,
              ok,
              version: version ?? null,
              reason: reason ?? null,
            })),
          } satisfies HealthResponse,
          { 'cache-control': 'no-store' },
        );
      },
    },
    {
      // For load balancers and orchestrators: 503 while a port does not answer or the engine is
      // stopping.
      method: 'GET',
      path: '/api/ready',
      public: true,
      async handle() {
        const { ready, checks } = await ctx.engine.readiness(ctx.readiness);
        return jsonAnswer(
          ready ? 200 : 503,
          { status: ready ? 'ready' : 'not_ready', checks } satisfies ReadinessResponse,
          { 'cache-control': 'no-store', ...(ready ? {} : { 'retry-after': '5' }) },
        );
      },
    },
  ];
}
