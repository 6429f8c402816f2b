/**
 * The web page's budget: the script (built from adapters/http/web/src by scripts/build-web.mjs,
 * fresh through the vitest globalSetup) and the stylesheet, as the routes serve them, under
 * 60 KB gzipped together, so the page stays quick on a phone over a slow network.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { call, startServer } from '../http/harness.js';

const BUDGET_BYTES = 60 * 1024;

describe('web converter size', () => {
  it('serves a bundled script and a stylesheet under 60 KB gzipped together', async () => {
    const server = await startServer({ router: { webConverter: true } });
    // Bytes as served, without the adapter's own compression.
    const script = await call(server, 'GET', '/web/app.js', { headers: { 'accept-encoding': 'identity' } });
    const style = await call(server, 'GET', '/web/style.css', { headers: { 'accept-encoding': 'identity' } });
    expect(script.status).toBe(200);
    expect(style.status).toBe(200);
    // The bundle, not the sources: one module with no import of its own.
    expect(script.text).not.toMatch(/^\s*import\s/m);
    expect(script.text).toContain('get-upload-url');
    const raw = Buffer.byteLength(script.text) + Buffer.byteLength(style.text);
    const gzipped = gzipSync(script.text, { level: 9 }).length + gzipSync(style.text, { level: 9 }).length;
    console.log(`web page: ${raw} bytes of script and style, ${gzipped} gzipped`);
    expect(gzipped).toBeLessThan(BUDGET_BYTES);
  });
});
