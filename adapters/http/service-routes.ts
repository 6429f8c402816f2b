/** The additive endpoints: GET /api/usage, GET /api/formats, GET /api/health, GET /api/ready. */
import { jsonAnswer } from './exchange.js';
import { describeFormats } from './formats-view.js';
import type { RouteContext } from './route-context.js';
import type { Route } from './routes.js';
import { usageView } from './usage-view.js';

export function serviceRoutes(ctx: RouteContext): Route[] {
  let formatsBody: Promise<string> | undefined;
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
      async handle() {
        // Serialised once: the list only changes when the process does.
        formatsBody ??= describeFormats(ctx.engine).then((body) => JSON.stringify(body));
        formatsBody.catch(() => {
          formatsBody = undefined;
        });
        return {
          status: 200,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'public, max-age=300',
          },
          body: await formatsBody,
        };
      },
    },
    {
      method: 'GET',
      path: '/api/health',
      async handle() {
        const converters = await ctx.engine.converters();
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
          },
          { 'cache-control': 'no-store' },
        );
      },
    },
    {
      // For load balancers and orchestrators: probed every few seconds, so it spends no rate
      // limit and needs no key. 503 while a port does not answer or the engine is stopping.
      method: 'GET',
      path: '/api/ready',
      public: true,
      async handle() {
        const { ready, checks } = await ctx.engine.readiness(ctx.readiness);
        return jsonAnswer(
          ready ? 200 : 503,
          { status: ready ? 'ready' : 'not_ready', checks },
          { 'cache-control': 'no-store', ...(ready ? {} : { 'retry-after': '5' }) },
        );
      },
    },
  ];
}
