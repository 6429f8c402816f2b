/**
 * The web converter's routes without a browser: the page and its two assets, their types,
 * Content-Security-Policy and cache headers, the redirect to the mount path's slash, and that
 * nothing is served unless the router is asked to (an embedded API stays API-only).
 */
import { describe, expect, it } from 'vitest';
import { webAssetsDir } from '../../src/service/web-routes.js';
import { call, PREFIX, rawRequest, startServer } from '../http/harness.js';

describe('web converter routes', () => {
  it('finds its assets beside the sources', () => {
    expect(webAssetsDir()).toMatch(/src\/service\/web\/$/);
  });

  it('serves the page with a strict CSP, revalidated on every load', async () => {
    const server = await startServer({ router: { webConverter: true } });
    const page = await call(server, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // Relative, versioned asset links; no third-party origin anywhere.
    expect(page.text).toMatch(/<script type="module" src="web\/app\.js\?v=[0-9a-f]{12}">/);
    expect(page.text).toMatch(/<link rel="stylesheet" href="web\/style\.css\?v=[0-9a-f]{12}">/);
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(page.text).toMatch(/<input type="file" id="file"/);
    expect(page.text).toMatch(/<label for="file"/);
    expect(page.text).toMatch(/aria-live="polite"/);
  });

  it('serves the script and the stylesheet with their types, cached for good when versioned', async () => {
    const server = await startServer({ router: { webConverter: true } });
    const page = await call(server, 'GET', '/');
    const version = /app\.js\?v=([0-9a-f]+)/.exec(page.text)![1];
    const script = await call(server, 'GET', `/web/app.js?v=${version}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.text).toContain('get-upload-url');
    const style = await call(server, 'GET', '/web/style.css');
    expect(style.status).toBe(200);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(style.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('answers a conditional GET of the page with 304', async () => {
    const server = await startServer({ router: { webConverter: true } });
    const page = await call(server, 'GET', '/');
    const etag = page.headers.get('etag');
    expect(etag).toBeTruthy();
    // node:http, not fetch: fetch adds Cache-Control: no-cache to a conditional request.
    const again = await rawRequest(`${server.url}/`, { method: 'GET', headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });

  it('redirects the mount path without a slash to the page, so relative links resolve under it', async () => {
    const server = await startServer({ router: { webConverter: true } });
    const origin = new URL(server.url).origin;
    const response = await fetch(`${origin}${PREFIX}?from=test`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe(`${PREFIX}/?from=test`);
  });

  it('is off unless asked for', async () => {
    const server = await startServer();
    expect((await call(server, 'GET', '/')).status).toBe(404);
    expect((await call(server, 'GET', '/web/app.js')).status).toBe(404);
  });
});
