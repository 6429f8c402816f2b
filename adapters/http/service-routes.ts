/** The additive endpoints: GET /api/usage, GET /api/formats, GET /api/health. */
import type { Router } from 'express';
import { clientOf } from './access.js';
import { describeFormats } from './formats-view.js';
import type { RouteContext } from './route-context.js';
import { usageView } from './usage-view.js';

export function addServiceRoutes(router: Router, ctx: RouteContext): void {
  router.get('/api/usage', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(await usageView(ctx.access, clientOf(res)));
  });

  let formatsBody: Promise<unknown> | undefined;
  router.get('/api/formats', async (_req, res) => {
    formatsBody ??= describeFormats(ctx.engine);
    res.set('Cache-Control', 'public, max-age=300');
    res.json(await formatsBody);
  });

  router.get('/api/health', async (_req, res) => {
    const converters = await ctx.engine.converters();
    res.set('Cache-Control', 'no-store');
    res.json({
      status: 'ok',
      engines: converters.map(({ name, ok, version, reason }) => ({
        name,
        ok,
        version: version ?? null,
        reason: reason ?? null,
      })),
    });
  });
}
