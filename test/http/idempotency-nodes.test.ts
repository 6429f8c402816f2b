/**
 * Idempotency-Key across processes' worth of state: two API nodes (two services, each with its
 * own Redis clients) behind one load balancer create one job and charge once for 20 concurrent
 * requests sharing a key; and fileconv/preset hands the service its embedded (SQLite) store, so
 * an answer is replayed after a restart.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createRedisCounterStore } from '../../src/adapters/counters/redis.js';
import { createNodeHandler } from '../../src/adapters/http/node.js';
import { createRedisIdempotencyStore } from '../../src/adapters/idempotency/redis.js';
import { createFileconv, type Fileconv } from '../../src/preset/index.js';
import { describeWithRedis, freshPrefix } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/temp.js';
import { call, fixture, movableClock, startServer, uploadA } from './harness.js';

describeWithRedis('Idempotency-Key on two API nodes sharing Redis', (redis) => {
  it('creates one job and charges once for 20 concurrent requests with one key, spread over both nodes', async () => {
    const prefix = freshPrefix();
    const clock = movableClock(Date.now());
    const node = async (root?: string) => {
      const counters = createRedisCounterStore({ url: redis.url, prefix });
      const idempotency = createRedisIdempotencyStore({ url: redis.url, prefix });
      const server = await startServer({
        clock,
        ...(root ? { root } : {}),
        router: { counters, idempotency },
      });
      return { server, close: () => Promise.all([counters.close(), idempotency.close()]) };
    };
    const one = await node();
    // The second node reads the same file and job records (as nodes on a shared job store do).
    const two = await node(one.server.root);
    try {
      const png = await fixture('fixture.png');
      const granted = await uploadA(one.server, png, 'u.png', 'image/png');
      const job = {
        fileKey: granted.fileKey,
        sourceFormat: 'png',
        targetFormat: 'webp',
        fileSize: png.length,
      };
      // A fresh minute: the 20 requests are exactly the per-IP rate limit of job creation.
      clock.advance(60_000);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          call(n % 2 ? two.server : one.server, 'POST', '/api/jobs/create', {
            json: job,
            headers: { 'idempotency-key': 'two-nodes' },
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
      expect(new Set(answers.map((answer) => answer.body.jobId)).size).toBe(1);
      expect(await one.server.jobRecords()).toHaveLength(1);
      const usage = await call(two.server, 'GET', '/api/usage');
      expect(usage.body.quotas.conversions.used).toBe(1);
    } finally {
      await Promise.all([one.server.stop(), two.server.stop()]);
      await Promise.all([one.close(), two.close()]);
    }
  });
});

const opened: Fileconv[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const fileconv of opened.splice(0)) await fileconv.close({ graceMs: 1000 });
});

it('fileconv/preset keeps answers in the data dir database: a retry after a restart is replayed', async () => {
  const dataDir = await tempDir();
  const serve = async () => {
    const fileconv = await createFileconv({ dataDir, webhooks: false, converters: [], tracing: false });
    opened.push(fileconv);
    expect(fileconv.http.idempotency).toBe(fileconv.backends.idempotency);
    const server = createServer(createNodeHandler(fileconv.engine, fileconv.http));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { fileconv, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const grant = (url: string) =>
    fetch(`${url}/api/files/get-upload-url`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'restart-1' },
      body: JSON.stringify({ fileName: 'a.png', fileSize: 10, contentType: 'image/png' }),
    });
  const first = await serve();
  const granted = await grant(first.url);
  expect(granted.status).toBe(200);
  const body = await granted.json();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await opened.splice(0)[0]!.close({ graceMs: 1000 });

  const second = await serve();
  const again = await grant(second.url);
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await again.json()).toEqual(body);
});
