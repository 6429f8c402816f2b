/**
 * `fileconv serve` as an operator runs it: the whole service from one data dir, stopped with
 * conversions still queued and running, started again, and nothing is lost.
 */
import { stat } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadOrCreateSecret, startService } from '../bin/commands/serve.js';
import { createSqliteJobStore } from '../src/adapters/jobs/sqlite.js';
import { leftovers, tempDir } from './helpers/temp.js';

async function createJob(
  baseUrl: string,
  body: Buffer,
  name: string,
  targetFormat: string,
  options = {},
): Promise<string> {
  const grant = await fetch(`${baseUrl}/api/files/get-upload-url`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fileName: name, fileSize: body.length, contentType: 'image/png' }),
  }).then((r) => r.json() as Promise<{ uploadUrl: string; fileKey: string }>);
  const put = await fetch(grant.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body });
  expect(put.status).toBe(200);
  const created = await fetch(`${baseUrl}/api/jobs/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fileKey: grant.fileKey,
      sourceFormat: 'png',
      targetFormat,
      fileSize: body.length,
      options,
    }),
  });
  expect(created.status).toBe(200);
  return ((await created.json()) as { jobId: string }).jobId;
}

describe('fileconv serve', () => {
  it('keeps its signing secret across restarts', async () => {
    const data = await tempDir();
    const first = await loadOrCreateSecret(data);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(await loadOrCreateSecret(data)).toEqual(first);
    expect((await stat(join(data, 'signing-secret'))).mode & 0o777).toBe(0o600);
  });

  it('jobs queued or running when the server stops complete after it starts again', async () => {
    const data = await tempDir();
    // An 800 x 800 noisy image takes the single worker a while to encode as AVIF: the jobs are
    // created together and the server stopped at once, so at most one can be running.
    const png = await sharp({
      create: {
        width: 800,
        height: 800,
        channels: 3,
        background: '#888',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .png()
      .toBuffer();
    const first = await startService({
      port: 0,
      host: '127.0.0.1',
      data,
      concurrency: 1,
      graceSeconds: 0,
      log: false,
    });
    const jobIds: string[] = [];
    jobIds.push(
      ...(await Promise.all([0, 1, 2].map((index) => createJob(first.url, png, `p${index}.png`, 'avif')))),
    );
    await first.stop();
    // Nothing is failed or lost: the interrupted job went back to the queue with the waiting ones.
    // Read from the data dir's database, as the next start will (the stopped engine's store is closed).
    const stored = createSqliteJobStore({ path: join(data, 'fileconv.db') });
    const statuses = await Promise.all(jobIds.map(async (id) => (await stored.getJob(id))?.status));
    await stored.close();
    expect(statuses.filter((status) => status === 'queued').length, statuses.join()).toBeGreaterThanOrEqual(
      2,
    );
    expect(
      statuses.every((status) => status === 'queued' || status === 'completed'),
      statuses.join(),
    ).toBe(true);

    const second = await startService({ port: 0, host: '127.0.0.1', data, log: false });
    try {
      for (const id of jobIds) {
        const done = await second.engine.waitForJob(id, { timeoutMs: 60_000 });
        expect(done.status).toBe('completed');
        const view = (await (await fetch(`${second.url}/api/jobs/${id}`)).json()) as { downloadUrl: string };
        const bytes = Buffer.from(await (await fetch(view.downloadUrl)).arrayBuffer());
        const meta = await sharp(bytes).metadata();
        expect([meta.format, meta.compression, meta.width]).toEqual(['heif', 'av1', 800]);
      }
      // The serve process is fileconv's own: libvips keeps no operations or pixels for reuse
      // (releaseSharpCache; libvips' settings are process-wide, as this test's sharp shows).
      expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, items: { max: 0 }, files: { max: 0 } });
    } finally {
      await second.stop();
    }
    expect(await leftovers(join(data, 'tmp', String(process.pid)))).toEqual([]);
  });

  it('keeps one idle-body timer per keep-alive socket, however many uploads it carries', async () => {
    // Found by the soak: each upload on a kept-alive socket added a 'timeout' listener that was
    // never removed (MaxListenersExceededWarning after 11, a leak on every long-lived connection).
    const service = await startService({ port: 0, host: '127.0.0.1', data: await tempDir(), log: false });
    const sockets: Socket[] = [];
    service.server.on('connection', (socket: Socket) => sockets.push(socket));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let index = 0; index < 15; index++) {
        const status = await new Promise<number>((resolve, reject) => {
          const body = Buffer.from(
            `--b\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello ${index}\r\n--b--\r\n`,
          );
          const sent = request(`${service.url}/api/upload`, {
            method: 'POST',
            agent,
            headers: { 'content-type': 'multipart/form-data; boundary=b', 'content-length': body.length },
          });
          sent.once('error', reject);
          sent.once('response', (response) => {
            response.resume();
            response.once('end', () => resolve(response.statusCode ?? 0));
          });
          sent.end(body);
        });
        expect(status).toBe(200);
      }
      expect(sockets).toHaveLength(1);
      expect(sockets[0]!.listenerCount('timeout')).toBeLessThanOrEqual(1);
    } finally {
      agent.destroy();
      await service.stop();
    }
  });
});
