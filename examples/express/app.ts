/**
 * fileconv's HTTP API inside an Express app, under /files. `server.ts` runs it; the tests
 * mount this same app (test/examples.test.ts).
 */
import express from 'express';
import type { JobEngine } from 'fileconv';
import { createHttpRouter } from 'fileconv/http/express';
import type { FileconvHttpOptions } from 'fileconv/preset';

export const basePath = '/files';

export function createApp(engine: JobEngine, http: FileconvHttpOptions): express.Express {
  const app = express();
  // No body parser in front of it: uploads stream from the socket, JSON is read by fileconv.
  app.use(basePath, createHttpRouter(engine, http));
  return app;
}
