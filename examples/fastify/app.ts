/**
 * fileconv's HTTP API as a Fastify plugin, under /files. `server.ts` runs it; the tests mount
 * this same app (test/examples.test.ts).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { JobEngine } from 'fileconv';
import { createFastifyPlugin, fileconvFrameworkErrors } from 'fileconv/http/fastify';
import type { FileconvHttpOptions } from 'fileconv/preset';

export const basePath = '/files';

export function createApp(engine: JobEngine, http: FileconvHttpOptions): FastifyInstance {
  // Requests Fastify refuses before routing (a path that is not valid percent-encoding) get
  // fileconv's error body too.
  const app = Fastify({ frameworkErrors: fileconvFrameworkErrors });
  // The plugin reads bodies itself, within its own scope: the app's parsers elsewhere are untouched.
  app.register(createFastifyPlugin(engine, http), { prefix: basePath });
  return app;
}
