/**
 * GET /api/openapi.json (the OpenAPI 3.1 description) and GET /api/docs (the same, as a page).
 *
 * They are registered after the access middleware like every route: anonymous requests pass it
 * (the Free plan; no API key needed), so the docs are public, and they count against the per-IP
 * "default" rate limit (60 a minute) like any other read. A malformed or unknown Authorization
 * header is refused with 401 here as everywhere, which is consistent rather than special-cased.
 */
import type { Request, Router } from 'express';
import { renderDocsPage } from './docs-page.js';
import { baseUrlOf } from './links.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import type { RouteContext } from './route-context.js';

/** Distinct base URLs (Host headers) whose rendering is kept; more just render again. */
const MAX_CACHED_BASES = 16;

export function addDocsRoutes(router: Router, ctx: RouteContext): void {
  // Built once per router; only servers[0].url depends on the request.
  const base = buildOpenApiDocument();
  const rendered = new Map<string, { json: string; html: string }>();

  function renderedFor(req: Request) {
    // The public base when configured, else how this client reached the router (the same rule as
    // the upload and download links the API hands out).
    const url = baseUrlOf(req, ctx.links.publicUrl);
    let entry = rendered.get(url);
    if (!entry) {
      const doc: OpenApiDocument = { ...base, servers: [{ url }] };
      entry = { json: JSON.stringify(doc), html: renderDocsPage(doc) };
      if (rendered.size >= MAX_CACHED_BASES) rendered.delete(rendered.keys().next().value!);
      rendered.set(url, entry);
    }
    return entry;
  }

  router.get('/api/openapi.json', (req, res) => {
    res.set('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(renderedFor(req).json);
  });

  router.get('/api/docs', (req, res) => {
    res.set('Cache-Control', 'public, max-age=300');
    // The page has no script and loads nothing: say so, so nothing injected could run either.
    res.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'");
    res.set('X-Content-Type-Options', 'nosniff');
    res.type('text/html; charset=utf-8').send(renderedFor(req).html);
  });
}
