/**
 * A fileconv HTTP service in its own process, for the tus tests that measure the server's memory
 * honestly (test/http/tus-resume.test.ts): `node --import tsx test/http/tus-server-process.ts
 * <dataDir>` prints `listening <port>` once it listens. Files go to fs storage under the data
 * dir, or, with FILECONV_TUS_S3_ENDPOINT and FILECONV_TUS_S3_BUCKET, to that (s3rver) bucket.
 * The Free plan's upload limit is raised to 1 GB so a 300 MB upload fits.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createNodeHandler } from '../../src/adapters/http/node.js';
import { createFsJobStore } from '../../src/adapters/jobs/fs.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { createS3Storage } from '../../src/adapters/storage/s3.js';
import { createEngine, definePlans } from '../../src/index.js';
import { S3RVER_CREDENTIALS } from '../helpers/s3rver.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: tus-server-process.ts <dataDir>');
const s3Endpoint = process.env.FILECONV_TUS_S3_ENDPOINT;
const storage = s3Endpoint
  ? createS3Storage({
      bucket: process.env.FILECONV_TUS_S3_BUCKET ?? 'fileconv-test',
      endpoint: s3Endpoint,
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
    })
  : createFsStorage({ dir: join(dataDir, 'storage'), fsync: false });
const engine = createEngine({
  storage,
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
