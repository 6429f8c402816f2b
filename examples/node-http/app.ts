/**
 * fileconv's HTTP API on a plain node:http server, under /files: no framework at all.
 * `server.ts` runs it; the tests mount this same server (test/examples.test.ts).
 */
import { createServer, type Server } from 'node:http';
import type { JobEngine } from 'fileconv';
import { createNodeHandler } from 'fileconv/http/node';
import type { FileconvHttpOptions } from 'fileconv/preset';

export const basePath = '/files';

export function createApp(engine: JobEngine, http: FileconvHttpOptions): Server {
  const files = createNodeHandler(engine, { ...http, basePath });
  return createServer((req, res) =>
    // Requests outside /files go on to the host's own routes; here, a plain 404.
    files(req, res, () => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n')),
  );
}
