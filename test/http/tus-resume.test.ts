/**
 * Resuming over tus: 300 MB uploaded with tus-js-client to a server in its own process, through
 * a TCP proxy that cuts the connection once ~60% of the bytes have passed; the upload resumes
 * from its URL, the stored file's sha256 is the source's, and the server's RSS grows by less
 * than 96 MB on the way (the bytes stream to disk, never buffered whole). Also: a PATCH whose
 * connection stalled is stopped by the next PATCH to the same upload and keeps what it had.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createCipheriv, createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Upload } from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Storage } from '../../src/adapters/storage/s3.js';
import { waitUntil } from '../../src/testing/fresh-instance.js';
import { S3RVER_CREDENTIALS, type S3rverHandle, startS3rver } from '../helpers/s3rver.js';
import { expectError, HTTP_ADAPTER, startServer } from './harness.js';
import { createTusUpload, partialFiles, TUS, tusHead, tusPatch } from './tus-helpers.js';

const MB = 1024 * 1024;
const SIZE = 300 * MB;
const CUT_AT = Math.floor(SIZE * 0.6);
// Streaming holds at most a part and its buffers, not the 300 MB: measured 40-66 MB of peak growth
// on S3 (66 MB with the 60-second soak running beside it in CI), far below the upload's size.
const RSS_GROWTH_LIMIT = 96 * MB;
const ROOT = join(import.meta.dirname, '..', '..');

/** Writes `size` deterministic pseudo-random bytes (AES-CTR of zeros) to `file`; returns their sha256. */
async function writeSource(file: string, size: number): Promise<string> {
  const cipher = createCipheriv('aes-256-ctr', Buffer.alloc(32, 7), Buffer.alloc(16, 1));
  const hash = createHash('sha256');
  const zeros = Buffer.alloc(MB);
  let left = size;
  const source = Readable.from(
    (function* () {
      while (left > 0) {
        const bytes = cipher.update(zeros.subarray(0, Math.min(MB, left)));
        left -= bytes.length;
        hash.update(bytes);
        yield bytes;
      }
    })(),
  );
  await pipeline(source, createWriteStream(file));
  return hash.digest('hex');
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The server process: `listening <port>` on stdout once it listens. */
function startServerProcess(
  dataDir: string,
  s3: S3rverHandle | undefined,
): Promise<{ child: ChildProcess; port: number; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test/http/tus-server-process.ts'), dataDir],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: s3
        ? { ...process.env, FILECONV_TUS_S3_ENDPOINT: s3.endpoint, FILECONV_TUS_S3_BUCKET: s3.bucket }
        : process.env,
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const port = /listening (\d+)/.exec(stdout)?.[1];
      if (port) resolve({ child, port: Number(port), stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${stderr}`)));
  });
}

/** Resident memory of a process, bytes (Linux /proc). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A TCP proxy to `port` that cuts every connection once `cutAt` request bytes passed, once. */
function cuttingProxy(
  port: number,
  cutAt: number,
): Promise<{ server: Server; port: number; cut: () => boolean }> {
  let forwarded = 0;
  let cut = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      forwarded += chunk.length;
      if (!cut && forwarded >= cutAt) {
        cut = true;
        // A lost network: both sides reset, nothing more is delivered.
        for (const socket of sockets) socket.resetAndDestroy();
        return;
      }
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.pipe(client);
    for (const socket of [client, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as { port: number }).port, cut: () => cut }),
    ),
  );
}

function tusUpload(file: string, options: ConstructorParameters<typeof Upload>[1]): Promise<Upload> {
  return new Promise((resolve, reject) => {
    const upload = new Upload(createReadStream(file), {
      ...options,
      onSuccess: () => resolve(upload),
      onError: reject,
    });
    upload.start();
  });
}

// The server process serves through createNodeHandler whatever adapter the suite runs through:
// once (in the `all` project, the Express run) is enough for 300 MB.
// On fs storage (a partial file renamed into place) and on S3 (s3rver: one multipart upload,
// a tail object between requests), each in the server process, s3rver in this one.
describe.runIf(HTTP_ADAPTER === 'express').each(['fs', 's3'] as const)(
  'tus-js-client on %s storage: 300 MB, the connection cut at 60%, resumed',
  (storageKind) => {
    let dir: string;
    let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    let s3: S3rverHandle | undefined;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fileconv-tus-resume-'));
      if (storageKind === 's3') s3 = await startS3rver();
    });
    afterAll(async () => {
      server?.child.kill('SIGTERM');
      if (server && server.child.exitCode === null)
        await new Promise((resolve) => server!.child.once('exit', resolve));
      await s3?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('stores the exact bytes, with the server RSS growing less than 96 MB', {
      timeout: 180_000,
    }, async () => {
      const source = join(dir, 'source.bin');
      const [sourceHash, started] = await Promise.all([
        writeSource(source, SIZE),
        startServerProcess(join(dir, 'data'), s3),
      ]);
      server = started;
      const proxy = await cuttingProxy(server.port, CUT_AT);
      const endpoint = `http://127.0.0.1:${proxy.port}/api/tus`;
      const pid = server.child.pid!;

      // Warm up (first request's code paths), then the baseline.
      await fetch(`http://127.0.0.1:${server.port}/api/tus`, { method: 'OPTIONS' });
      const baseline = await rssOf(pid);
      let peak = baseline;
      const sampler = setInterval(() => {
        rssOf(pid).then(
          (rss) => {
            peak = Math.max(peak, rss);
          },
          () => {},
        );
      }, 100);

      try {
        let uploadUrl: string | null = null;
        const first = tusUpload(source, {
          endpoint,
          uploadSize: SIZE,
          metadata: { filename: 'big.bin', filetype: 'application/octet-stream' },
          retryDelays: null,
        });
        const firstError = await first.then(
          () => null,
          (error: unknown) => error,
        );
        expect(firstError, 'the cut must fail the first attempt').not.toBeNull();
        expect(proxy.cut()).toBe(true);
        // The URL tus-js-client was given at creation (it keeps it on the error's upload too).
        const records = await readdir(join(dir, 'data', 'jobs', 'files'));
        const fileId = records.find((name) => name.endsWith('.json'))!.slice(0, -'.json'.length);
        uploadUrl = `http://127.0.0.1:${proxy.port}/api/tus/${fileId}`;
        // What arrived before the cut is kept: the server commits it once it sees the connection gone.
        let kept = 0;
        await waitUntil(async () => {
          const head = await fetch(`http://127.0.0.1:${server!.port}/api/tus/${fileId}`, {
            method: 'HEAD',
            headers: TUS,
          });
          kept = Number(head.headers.get('upload-offset'));
          return kept > 0;
        }, 20_000);
        expect(kept).toBeGreaterThan(SIZE * 0.4);
        expect(kept).toBeLessThanOrEqual(CUT_AT);

        const resumed = await tusUpload(source, {
          uploadUrl,
          uploadSize: SIZE,
          // The server may still be committing the cut request: a 409 after its HEAD is retried.
          retryDelays: [100, 300, 1000, 2000],
        });
        expect(resumed.url).toBe(uploadUrl);
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, await rssOf(pid));

      const files = await readdir(join(dir, 'data', 'jobs', 'files'));
      const fileId = files.find((name) => name.endsWith('.json'))!.slice(0, -'.json'.length);
      const record = JSON.parse(await readFile(join(dir, 'data', 'jobs', 'files', `${fileId}.json`), 'utf8'));
      expect(record).toMatchObject({ status: 'uploaded', size: SIZE, key: `uploads/${fileId}` });
      expect(record.resumable).toBeUndefined();
      if (s3) {
        // Read back from the bucket with a client of this process, not the server's.
        const bucket = createS3Storage({
          bucket: s3.bucket,
          endpoint: s3.endpoint,
          forcePathStyle: true,
          credentials: S3RVER_CREDENTIALS,
        });
        expect((await bucket.head(`uploads/${fileId}`))?.size).toBe(SIZE);
        const hash = createHash('sha256');
        for await (const chunk of await bucket.get(`uploads/${fileId}`)) hash.update(chunk as Buffer);
        expect(hash.digest('hex')).toBe(sourceHash);
        expect(await s3.pendingMultipartUploads()).toEqual([]);
        const tails = s3.requests.filter((r) => r.method === 'PUT' && r.path.includes('.tus-tail-'));
        for (const tail of tails)
          expect(await bucket.head(decodeURIComponent(tail.path.split('/').slice(2).join('/')))).toBeNull();
        await bucket.close?.();
      } else {
        const stored = join(dir, 'data', 'storage', 'uploads', fileId);
        expect((await stat(stored)).size).toBe(SIZE);
        expect(await sha256Of(stored)).toBe(sourceHash);
        expect(await readdir(join(dir, 'data', 'storage', '.fileconv-resumable'))).toEqual([]);
      }
      expect(peak - baseline, `RSS ${baseline} -> peak ${peak}`).toBeLessThan(RSS_GROWTH_LIMIT);
      expect(server.stderr()).not.toContain('server error');
      proxy.server.close();
    });
  },
);

describe('a stalled PATCH', () => {
  it('is stopped by the next PATCH to the same upload, keeping what it had', async () => {
    const server = await startServer();
    // Larger than what the fetch adapter reads whole (64 KiB), so the PATCH streams in every adapter.
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 13) & 0xff));
    const { path, id } = await createTusUpload(server, bytes.length);
    // A half-open connection: 5000 bytes sent, then nothing (the client switched networks).
    const stalled = httpRequest(`${server.url}${path}`, {
      method: 'PATCH',
      headers: {
        ...TUS,
        'content-type': 'application/offset+octet-stream',
        'upload-offset': '0',
        'content-length': String(bytes.length),
      },
    });
    const stalledOutcome = new Promise<string>((resolve) => {
      stalled.on('response', (response) =>
        resolve(`status ${response.statusCode} offset ${response.headers['upload-offset']}`),
      );
      stalled.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    stalled.write(bytes.subarray(0, 5000));
    await waitUntil(async () => {
      const [partial] = await partialFiles(server);
      return partial !== undefined && (await stat(join(server.root, 'storage', partial))).size === 5000;
    });
    expect((await tusHead(server, path)).headers.get('upload-offset')).toBe('0');
    // The client's retry, from the offset it last heard: the stalled PATCH is stopped and
    // commits its 5000 bytes, so the retry learns the new offset (and tus-js-client HEADs again).
    expectError(await tusPatch(server, path, 0, bytes), 409, 'OFFSET_MISMATCH');
    expect((await tusHead(server, path)).headers.get('upload-offset')).toBe('5000');
    // The Node adapters close its connection; a fetch handler cannot, and answers it truthfully.
    expect(['ECONNRESET', 'status 204 offset 5000']).toContain(await stalledOutcome);
    const rest = await tusPatch(server, path, 5000, bytes.subarray(5000));
    expect(rest.status, rest.text).toBe(204);
    const stored = Buffer.concat(await (await server.engine.storage!.get(`uploads/${id}`)).toArray());
    expect(stored.equals(bytes)).toBe(true);
  });
});
