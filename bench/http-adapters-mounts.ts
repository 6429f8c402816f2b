/**
 * fileconv's HTTP service mounted at `/files` in each framework the adapter benchmark compares
 * (bench/http-adapters.ts), the way test/http/conformance.test.ts mounts it: node:http
 * (createNodeHandler), Express (createHttpRouter), the fetch handler on @hono/node-server, the
 * fetch handler inside a Hono app, and Fastify (the plugin). The engine is built for the HTTP
 * layer to dominate: the fake converter (txt -> md, no delay), fs storage without fsync (the bare
 * baselines do not fsync either), memory job store and queue, and no `counters` or `keys`, so no
 * rate limit or quota is counted (the access middleware still runs on every request).
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { createHttpRouter } from '../src/adapters/http/express.js';
import { createFastifyPlugin, fileconvFrameworkErrors } from '../src/adapters/http/fastify.js';
import { createFetchHandler, type FetchHandler } from '../src/adapters/http/fetch.js';
import { createNodeHandler } from '../src/adapters/http/node.js';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createFsStorage } from '../src/adapters/storage/fs.js';
import { createEngine, type Engine } from '../src/index.js';
import type { HttpServiceOptions } from '../src/service/service.js';
import { createFakeConverter } from '../src/testing/fake-converter.js';
import { BASE_PATH, type Framework, fetchServer, type Listening, listenLocal } from './http-adapters-bare.js';

async function startEngine(dir: string): Promise<Engine> {
  const tempDir = join(dir, 'tmp');
  await mkdir(tempDir, { recursive: true });
  const engine = createEngine({
    converters: [createFakeConverter({ delayMs: 0 })],
    storage: createFsStorage({ dir: join(dir, 'files'), fsync: false }),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    tempDir,
    onError: (error, context) => console.error(`fileconv bench: ${context}:`, error),
  });
  await engine.start();
  return engine;
}

function mount(
  framework: Framework,
  engine: Engine,
  options: Omit<HttpServiceOptions, 'authenticate'>,
): Promise<Listening> {
  switch (framework) {
    case 'node':
      return listenLocal(createServer(createNodeHandler(engine, { ...options, basePath: BASE_PATH })));
    case 'express': {
      const app = express();
      app.disable('x-powered-by');
      app.use(BASE_PATH, createHttpRouter(engine, options));
      return listenLocal(createServer(app));
    }
    case 'fetch': {
      const handler = createFetchHandler(engine, { ...options, basePath: BASE_PATH });
      return listenLocal(
        fetchServer((request, env) => handler(request, { remoteAddress: env.incoming.socket.remoteAddress })),
      );
    }
    case 'hono': {
      const handler: FetchHandler = createFetchHandler(engine, { ...options, basePath: BASE_PATH });
      const app = new Hono();
      app.all(`${BASE_PATH}/*`, (c) => handler(c.req.raw, { remoteAddress: getConnInfo(c).remote.address }));
      return listenLocal(createAdaptorServer({ fetch: app.fetch }) as Server);
    }
    case 'fastify':
      return listenFastify(engine, options);
  }
}

async function listenFastify(
  engine: Engine,
  options: Omit<HttpServiceOptions, 'authenticate'>,
): Promise<Listening> {
  const app = Fastify({ frameworkErrors: fileconvFrameworkErrors, forceCloseConnections: true });
  app.register(createFastifyPlugin(engine, options), { prefix: BASE_PATH });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no port');
  return { port: address.port, stop: () => app.close() };
}

/** fileconv mounted in `framework`, its engine's files under `dir`. */
export async function startFileconv(framework: Framework, dir: string): Promise<Listening> {
  const engine = await startEngine(dir);
  // No `counters` (and no `keys`): nothing is rate-limited or metered.
  const listening = await mount(framework, engine, { signingSecret: randomBytes(32) });
  return {
    port: listening.port,
    async stop() {
      await listening.stop();
      await engine.close({ graceMs: 5000 });
    },
  };
}
