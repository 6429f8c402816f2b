/**
 * `fileconv serve` when its data dir's disk fills up and is freed again (issue 20's soak test,
 * in small): the data dir and TMPDIR on a 64 MiB tmpfs of the test's own, filled by a ballast
 * file to ~1 MiB free. While full, every failure is a stable code of the service's fault
 * (507 NO_SPACE with Retry-After; /api/ready 503 naming the disk), a conversion that failed on
 * the disk is refunded, the process stays up and leaves no temp file behind. Once the ballast is
 * gone the same calls succeed without a restart, and what was accepted before the fill (uploads,
 * a signed upload grant) is still there. Needs root (mount); skipped otherwise, failing instead
 * under FILECONV_REQUIRE_ENGINES=1 (CI runs as root).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures } from '../src/testing/index.js';
import { LO_AVAILABLE } from './converters/libreoffice-helpers.js';
import { describeWithEngine, ENGINES_REQUIRED } from './helpers/engines.js';
import { exited, type ServeProcess, startServeProcess } from './helpers/serve-process.js';
import { canMountTmpfs, MOUNT_INSTALL } from './helpers/tmpfs.js';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

/**
 * One request through node:http, body sent whole: an answer that comes before the body was read
 * (a refused upload) is still read, where fetch would report the connection's close instead.
 */
function call(
  url: string,
  method: string,
  body?: Buffer | string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      {
        method,
        headers:
          body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          const retryAfter = response.headers['retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
            body: text ? (JSON.parse(text) as Answer['body']) : {},
          });
        });
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

function json(url: string, body: unknown): Promise<Answer> {
  return call(url, 'POST', JSON.stringify(body), { 'content-type': 'application/json' });
}

/** A multipart form with one `file` part, as Flow B's upload takes it. */
function multipart(bytes: Buffer, fileName: string): { body: Buffer; type: string } {
  const boundary = `----fileconv${randomBytes(8).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

function expectRefusal(answer: Answer, status: number, code: string): void {
  expect([answer.status, answer.body.error?.code], JSON.stringify(answer.body)).toEqual([status, code]);
}

/** NO_SPACE as issue 20 wants a fault: 507, Retry-After, a message saying the disk is full. */
function expectNoSpace(answer: Answer): void {
  expectRefusal(answer, 507, 'NO_SPACE');
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  expect(answer.body.error?.message).toMatch(/no space left|free on the disk|disk is full/);
}

describeWithEngine(
  'a tmpfs of its own',
  canMountTmpfs(),
  MOUNT_INSTALL,
  'fileconv serve on a full disk',
  () => {
    let root: string;
    let disk: string;
    let data: string;
    let scratch: string;
    let serve: ServeProcess | undefined;
    let mounted = false;
    let big: Buffer;
    let small: Buffer;
    let docx: Buffer;
    /** Uploaded before the fill: Flow B's big PNG and docx, Flow A's big PNG (a key and a second, unused grant). */
    const before = { png: '', docx: '', flowAKey: '', spareUrl: '' };

    const url = (path: string) => `${serve!.url}${path}`;
    const ballast = () => join(disk, 'ballast');

    async function upload(bytes: Buffer, fileName: string): Promise<Answer> {
      const form = multipart(bytes, fileName);
      return call(url('/api/upload'), 'POST', form.body, { 'content-type': form.type });
    }
    const convert = (fileId: string, fileName: string, targetFormat: string) =>
      json(url('/api/convert'), { fileId, fileName, targetFormat });
    const grant = (fileSize: number) =>
      json(url('/api/files/get-upload-url'), { fileName: 'big.png', fileSize, contentType: 'image/png' });
    const put = (uploadUrl: string, bytes: Buffer) =>
      call(uploadUrl, 'PUT', bytes, { 'content-type': 'image/png' });

    async function used(kind: 'conversions' | 'files'): Promise<number> {
      const usage = await call(url('/api/usage'), 'GET');
      return (usage.body.quotas as Record<string, { used: number }>)[kind]!.used;
    }

    /** A Flow A job on `fileKey`, waited for until it settles. */
    async function flowAJob(fileKey: string): Promise<{ status: string; error?: { code: string } }> {
      const created = await json(url('/api/jobs/create'), {
        fileKey,
        sourceFormat: 'png',
        targetFormat: 'webp',
        fileSize: big.length,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      for (let waited = 0; waited < 20_000; waited += 100) {
        const job = await call(url(`/api/jobs/${created.body.jobId as string}`), 'GET');
        const status = job.body.status as string;
        if (status !== 'queued' && status !== 'processing') {
          return job.body as { status: string; error?: { code: string } };
        }
        await sleep(100);
      }
      throw new Error('The Flow A job did not settle within 20 s.');
    }

    /** What fileconv left in its temp dirs: the storage's, the process's own, and TMPDIR's. */
    async function tempLeftovers(): Promise<string[]> {
      const list = async (dir: string) => (await readdir(dir).catch(() => [])).map((name) => join(dir, name));
      const processDirs = await list(join(data, 'tmp'));
      return [
        ...(await list(join(data, 'files', '.fileconv-tmp'))),
        ...(await Promise.all(processDirs.map(list))).flat(),
        // tsx's compile cache is the test's own; LibreOffice's pool keeps one profile root while
        // it runs, and the isolated children one (each child's own inside, removed as it ends).
        ...(await list(scratch)).filter(
          (path) => !/\/(tsx-\d+|fileconv-office-[\w-]+|fileconv-isolated-[\w-]+)$/.test(path),
        ),
      ];
    }

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'fileconv-disk-full-'));
      disk = join(root, 'disk');
      mkdirSync(disk);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', disk]);
      mounted = true;
      data = join(disk, 'data');
      scratch = join(disk, 'tmp');
      await mkdir(scratch);
      // Limits stay on (the quota is what shows a refund), high enough for the calls below.
      const plans = join(root, 'plans.json');
      await writeFile(
        plans,
        JSON.stringify({
          free: {
            conversionsPerDay: 100,
            requestsPerMinute: 1000,
            uploadRequestsPerMinute: 1000,
            uploadBytesPerHour: null,
          },
        }),
      );
      serve = await startServeProcess(['--data', data, '--no-log', '--no-web', '--plans', plans], {
        ...process.env,
        TMPDIR: scratch,
      });
      // Noise does not compress: ~6.8 MB as PNG, far more than the ~1 MiB left once full.
      big = await sharp(randomBytes(1500 * 1500 * 3), { raw: { width: 1500, height: 1500, channels: 3 } })
        .png({ compressionLevel: 0 })
        .toBuffer();
      small = await readFile(fixtures.png!);
      docx = await readFile(join(import.meta.dirname, '..', 'fixtures', 'fixture.docx'));
    });

    afterAll(async () => {
      if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
        serve.child.kill('SIGTERM');
        await exited(serve.child);
      }
      if (mounted) {
        try {
          execFileSync('umount', [disk]);
        } catch {
          execFileSync('umount', ['-l', disk]);
        }
      }
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('before the fill: uploads through Flow B and Flow A are accepted', async () => {
      const png = await upload(big, 'big.png');
      expect(png.status, JSON.stringify(png.body)).toBe(200);
      before.png = png.body.fileId as string;
      const office = await upload(docx, 'letter.docx');
      expect(office.status).toBe(200);
      before.docx = office.body.fileId as string;
      const granted = await grant(big.length);
      expect(granted.status).toBe(200);
      expect((await put(granted.body.uploadUrl as string, big)).status).toBe(200);
      before.flowAKey = granted.body.fileKey as string;
      // A grant whose bytes only come once the disk is full.
      const spare = await grant(big.length);
      expect(spare.status).toBe(200);
      before.spareUrl = spare.body.uploadUrl as string;
    });

    it('while full: stable 507 NO_SPACE with Retry-After, refunds, health up, not ready', async () => {
      const { bavail, bsize } = await statfs(disk);
      execFileSync('fallocate', ['-l', String(bavail * bsize - 1024 * 1024), ballast()]);
      let conversionsBefore = await used('conversions');
      const filesBefore = await used('files');

      expect((await call(url('/api/health'), 'GET')).status).toBe(200);
      const ready = await call(url('/api/ready'), 'GET');
      expect(ready.status).toBe(503);
      expect(Number(ready.retryAfter)).toBeGreaterThan(0);
      const diskCheck = (ready.body.checks as { name: string; ok: boolean; error?: { code: string } }[]).find(
        (check) => check.name === 'disk',
      );
      expect(diskCheck).toMatchObject({ ok: false, error: { code: 'NO_SPACE' } });

      // Flow B: an upload that does not fit, and conversions of files uploaded before the fill.
      expectNoSpace(await upload(big, 'again.png'));
      expectNoSpace(await convert(before.png, 'big.png', 'tiff'));
      if (LO_AVAILABLE || ENGINES_REQUIRED) {
        // LibreOffice is warm once serve has asked for its engines at start: a small PDF may
        // still fit in the last MiB. It converts, or it is the disk's fault; never the file's.
        const office = await convert(before.docx, 'letter.docx', 'pdf');
        if (office.status === 200)
          conversionsBefore += 1; // done, so charged
        else expectNoSpace(office);
      }
      // Flow A: the bytes of a granted upload that do not fit, answered (not a reset connection).
      expectNoSpace(await put(before.spareUrl, big));
      // A job accepted while full fails on the disk, with the same code, not CONVERSION_FAILED.
      const job = await flowAJob(before.flowAKey);
      expect([job.status, job.error?.code]).toEqual(['failed', 'NO_SPACE']);

      // Nothing failed by the full disk counts: conversions refunded (when the job settles), the
      // refused upload given back.
      for (
        let waited = 0;
        (await used('conversions')) !== conversionsBefore && waited < 3000;
        waited += 100
      ) {
        await sleep(100);
      }
      expect(await used('conversions')).toBe(conversionsBefore);
      expect(await used('files')).toBe(filesBefore);
      expect(serve!.child.exitCode).toBeNull();
      expect(await tempLeftovers()).toEqual([]);
    });

    it('with not a byte free: the embedded database refuses with NO_SPACE before anything is acknowledged', async () => {
      const { bavail, bsize } = await statfs(disk);
      execFileSync('fallocate', ['-l', String(bavail * bsize), join(disk, 'last-byte')]);
      try {
        expectNoSpace(await grant(small.length));
        expectNoSpace(await convert(before.png, 'big.png', 'webp'));
        expectNoSpace(
          await json(url('/api/jobs/create'), {
            fileKey: before.flowAKey,
            sourceFormat: 'png',
            targetFormat: 'webp',
            fileSize: big.length,
          }),
        );
        expect((await call(url('/api/health'), 'GET')).status).toBe(200);
      } finally {
        await rm(join(disk, 'last-byte'));
      }
      expect(serve!.child.exitCode).toBeNull();
    });

    it('once freed: the same calls succeed without a restart, and what was accepted before is there', async () => {
      await rm(ballast());
      const ready = await call(url('/api/ready'), 'GET');
      expect(ready.status, JSON.stringify(ready.body)).toBe(200);

      expect((await upload(small, 'small.png')).status).toBe(200);
      const png = await convert(before.png, 'big.png', 'tiff');
      expect(png.status, JSON.stringify(png.body)).toBe(200);
      if (LO_AVAILABLE || ENGINES_REQUIRED) {
        const office = await convert(before.docx, 'letter.docx', 'pdf');
        expect(office.status, JSON.stringify(office.body)).toBe(200);
      }
      // The grant refused while full takes its bytes now; the upload of before the fill converts.
      expect((await put(before.spareUrl, big)).status).toBe(200);
      const job = await flowAJob(before.flowAKey);
      expect(job.status, JSON.stringify(job)).toBe('completed');
      expect(serve!.child.exitCode).toBeNull();
      expect(await tempLeftovers()).toEqual([]);
    });

    it('stops cleanly afterwards, leaving nothing in its temp dirs', async () => {
      serve!.child.kill('SIGTERM');
      await exited(serve!.child);
      expect(serve!.child.exitCode).toBe(0);
      expect(await tempLeftovers()).toEqual([]);
      // LibreOffice's pool removes its profile root on close.
      expect((await readdir(scratch)).filter((name) => name.startsWith('fileconv-'))).toEqual([]);
    });
  },
);
