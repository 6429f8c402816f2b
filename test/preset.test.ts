/**
 * fileconv/preset: what a host gets from one call is the service `fileconv serve` runs: every
 * converter, the embedded database, counters, keys, and a signing secret kept in the data dir.
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpRouter } from '../src/adapters/http/express.js';
import { isFileconvError } from '../src/index.js';
import { createFileconv, type Fileconv } from '../src/preset/index.js';
import { fixture, tempDir } from './helpers/temp.js';

const opened: Fileconv[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const fileconv of opened.splice(0)) await fileconv.close({ graceMs: 1000 });
});

async function open(dataDir: string): Promise<Fileconv> {
  const fileconv = await createFileconv({ dataDir, webhooks: false });
  opened.push(fileconv);
  return fileconv;
}

describe('createFileconv', () => {
  it('mounts in an Express app in two lines and converts an upload (Flow B, sharp)', async () => {
    const dataDir = await tempDir();
    const fileconv = await open(dataDir);
    const app = express();
    app.use('/files', createHttpRouter(fileconv.engine, fileconv.http));
    const server = createServer(app);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/files`;

    const form = new FormData();
    form.set('file', new Blob([await readFile(fixture('fixture.jpg'))]), 'photo.jpg');
    const uploaded = await fetch(`${base}/api/upload`, { method: 'POST', body: form });
    expect(uploaded.status).toBe(200);
    const { fileId } = (await uploaded.json()) as { fileId: string };
    const converted = await fetch(`${base}/api/convert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileId, fileName: 'photo.jpg', targetFormat: 'webp' }),
    });
    expect(converted.status).toBe(200);
    const { downloadId } = (await converted.json()) as { downloadId: string };
    const download = await fetch(`${base}/api/download?id=${downloadId}`);
    expect(download.status).toBe(200);
    const meta = await sharp(Buffer.from(await download.arrayBuffer())).metadata();
    expect(meta.format).toBe('webp');

    // The anonymous quota is counted in the embedded database, as `fileconv serve` counts it.
    const usage = (await (await fetch(`${base}/api/usage`)).json()) as {
      quotas: { conversions: { used: number } };
    };
    expect(usage.quotas.conversions.used).toBe(1);
    // The signing secret it made is kept (0600) for the next start.
    expect((await stat(join(dataDir, 'signing-secret'))).mode & 0o777).toBe(0o600);
    expect(await stat(join(dataDir, 'fileconv.db'))).toBeTruthy();
  });

  it('keeps the data dir to one process at a time and gives it back on close', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const refused = await createFileconv({ dataDir, webhooks: false }).catch((error: unknown) => error);
    expect(isFileconvError(refused)).toBe(true);
    await first.close();
    const second = await open(dataDir);
    expect(second.engine).toBeDefined();
  });

  it('refuses an API node without workers when nothing shares its queue', async () => {
    const dataDir = await tempDir();
    const refused = await createFileconv({ dataDir, worker: false }).catch((error: unknown) => error);
    expect(isFileconvError(refused, 'INVALID_REQUEST')).toBe(true);
    // Refused without keeping the data dir: the next start gets it.
    await open(dataDir);
  });
});
