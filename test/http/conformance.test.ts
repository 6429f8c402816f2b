/**
 * The exported HTTP conformance suite (fileconv/testing: testHttpService) against every adapter
 * of the service, mounted below a prefix as a host would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { createHttpRouter } from '../../src/adapters/http/express.js';
import { createFastifyPlugin, fileconvFrameworkErrors } from '../../src/adapters/http/fastify.js';
import { createFetchHandler } from '../../src/adapters/http/fetch.js';
import { createNodeHandler } from '../../src/adapters/http/node.js';
import { testHttpService } from '../../src/testing/index.js';
import { listening } from '../helpers/listening.js';

testHttpService('node:http', ({ engine, options, basePath }) =>
  listening(createServer(createNodeHandler(engine, { ...options, basePath })), basePath),
);

testHttpService('Express', ({ engine, options, basePath }) => {
  const app = express();
  app.use(basePath, createHttpRouter(engine, options));
  return listening(createServer(app), basePath);
});

testHttpService(
  'fetch handler (@hono/node-server)',
  ({ engine, options, basePath }) => {
    const handler = createFetchHandler(engine, { ...options, basePath });
    const server = createAdaptorServer({
      fetch: (request: Request, env: { incoming: { socket: { remoteAddress?: string | undefined } } }) =>
        handler(request, { remoteAddress: env.incoming.socket.remoteAddress }),
    }) as Server;
    return listening(server, basePath);
  },
  { compression: false },
);

testHttpService('Fastify', async ({ engine, options, basePath }) => {
  // forceCloseConnections: close() drops keep-alive sockets too. Without it a socket whose last
  // answer the client has read but the server not yet marked finished is not idle at close(),
  // and close() waits for the client's keep-alive to end (about a minute).
  const app = Fastify({ frameworkErrors: fileconvFrameworkErrors, forceCloseConnections: true });
  app.register(createFastifyPlugin(engine, options), { prefix: basePath });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${basePath}`,
    close: () => app.close(),
  };
});
