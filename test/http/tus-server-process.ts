/**
 * A fileconv HTTP service on fs storage in its own process, for the tus tests that measure the
 * server's memory honestly (test/http/tus-resume.test.ts): `node --import tsx
 * test/http/tus-server-process.ts <dataDir>` prints `listening <port>` once it listens.
 * The Free plan's upload limit is raised to 1 GB so a 300 MB upload fits.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createNodeHandler } from '../../adapters/http/node.js';
import { createFsJobStore } from '../../adapters/jobs/fs.js';
import { createMemoryQueue } from '../../adapters/queue/memory.js';
import { createFsStorage } from '../../adapters/storage/fs.js';
import { createEngine, definePlans } from '../../src/index.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: tus-server-process.ts <dataDir>');
const engine = createEngine({
  storage: createFsStorage({ dir: join(dataDir, 'storage'), fsync: false }),
  jobs: createFsJobStore({ dir: join(dataDir, 'jobs'), fsync: false }),
  queue: createMemoryQueue(),
  converters: [],
  sweepIntervalMs: 0,
});
await engine.start();
const handler = createNodeHandler(engine, {
  signingSecret: 'fileconv-tus-process-signing-secret-0123456789',
  plans: definePlans({ free: { maxFileBytes: 1024 * 1024 * 1024 } }),
  onError: (error) => console.error('server error', error),
});
const server = createServer(handler);
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void engine.close().then(() => process.exit(0));
});
