/**
 * The example apps in examples/ pass the HTTP conformance suite as they are: each example's own
 * createApp, importing fileconv by package name as a user's app does, is mounted with the
 * suite's engine under the example's prefix. (examples-nextjs.test.ts does the same for the
 * Next.js example, through a real Next server.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { testHttpService } from 'fileconv/testing';
import * as expressExample from '../examples/express/app.js';
import * as fastifyExample from '../examples/fastify/app.js';
import * as honoExample from '../examples/hono/app.js';
import * as nodeExample from '../examples/node-http/app.js';
import { listening } from './helpers/listening.js';

testHttpService(
  'examples/express',
  async ({ engine, options, basePath }) =>
    listening(createServer(expressExample.createApp(engine, options)), basePath),
  { basePath: expressExample.basePath },
);

testHttpService(
  'examples/fastify',
  async ({ engine, options, basePath }) => {
    const app = fastifyExample.createApp(engine, options);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${basePath}`,
      close: async () => {
        // Keep-alive sockets too: close() would otherwise wait for the client to drop them.
        app.server.closeAllConnections();
        await app.close();
      },
    };
  },
  { basePath: fastifyExample.basePath },
);

testHttpService(
  'examples/hono',
  async ({ engine, options, basePath }) =>
    listening(
      createAdaptorServer({ fetch: honoExample.createApp(engine, options).fetch }) as Server,
      basePath,
    ),
  // A fetch handler leaves compression to its framework.
  { basePath: honoExample.basePath, compression: false },
);

testHttpService(
  'examples/node-http',
  async ({ engine, options, basePath }) => listening(nodeExample.createApp(engine, options), basePath),
  { basePath: nodeExample.basePath },
);
