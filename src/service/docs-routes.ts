/**
 * GET /api/openapi.json (the OpenAPI 3.1 description) and GET /api/docs (the same, as a page).
 *
 * They pass access control like every route: anonymous requests pass it (the Free plan; no API
 * key needed), so the docs are public, and they count against the per-IP "default" rate limit
 * (60 a minute) like any other read. A malformed or unknown Authorization header is refused
 * with 401 here as everywhere, which is consistent rather than special-cased.
 */
import { renderDocsPage } from './docs-page.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import type { Route } from './routes.js';

/** Distinct base URLs (Host headers) whose rendering is kept; more just render again. */
const MAX_CACHED_BASES = 16;

export function docsRoutes(): Route[] {
  // Built once per service; only servers[0].url depends on the request.
  const base = buildOpenApiDocument();
  // Buffers, kept: compression.ts keeps each one's compressed forms beside it.
  const rendered = new Map<string, { json: Buffer; html: Buffer }>();

  function renderedFor(url: string) {
    // The public base when configured, else how this client reached the service (the same rule
    // as the upload and download links the API hands out).
    let entry = rendered.get(url);
    if (!entry) {
      const doc: OpenApiDocument = { ...base, servers: [{ url }] };
      entry = { json: Buffer.from(JSON.stringify(doc)), html: Buffer.from(renderDocsPage(doc)) };
      if (rendered.size >= MAX_CACHED_BASES) rendered.delete(rendered.keys().next().value!);
      rendered.set(url, entry);
    }
    return entry;
  }

  return [
    {
      method: 'GET',
      path: '/api/openapi.json',
      handle: async ({ baseUrl }) => ({
        status: 200,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'public, max-age=300',
        },
        body: renderedFor(baseUrl).json,
      }),
    },
    {
      method: 'GET',
      path: '/api/docs',
      handle: async ({ baseUrl }) => ({
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'public, max-age=300',
          // The page has no script and loads nothing: say so, so nothing injected could run either.
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'",
          'x-content-type-options': 'nosniff',
        },
        body: renderedFor(baseUrl).html,
      }),
    },
  ];
}
