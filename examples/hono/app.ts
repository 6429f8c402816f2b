/**
 * fileconv's HTTP API in a Hono app, under /files, through the web-standard fetch handler.
 * `server.ts` runs it on Node (@hono/node-server); the tests mount this same app
 * (test/examples.test.ts).
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { JobEngine } from 'fileconv';
import { createFetchHandler } from 'fileconv/http';
import type { FileconvHttpOptions } from 'fileconv/preset';
import { Hono } from 'hono';

export const basePath = '/files';

export function createApp(engine: JobEngine, http: FileconvHttpOptions): Hono {
  const files = createFetchHandler(engine, { ...http, basePath });
  const app = new Hono();
  // A web Request does not carry the client's address: pass it, for the per-IP limits.
  app.all(`${basePath}/*`, (c) => files(c.req.raw, { remoteAddress: getConnInfo(c).remote.address }));
  return app;
}
