/**
 * Nothing `fileconv serve` acknowledged is lost when the process is SIGKILLed and started again
 * on the same data dir: an upload and a job the moment their ids were answered, the Free plan's
 * daily quota, a revoked API key, a webhook delivery whose receiver was down. And one data dir has one server: a second one refuses to start while the
 * first runs, and the lock dies with a killed process.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI_ARGS, type ServeProcess, startServeProcess } from './helpers/serve-process.js';
import { tempDir } from './helpers/temp.js';
import { createWebhookJobOverHttp } from './webhooks/setup.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = CLI_ARGS;
const WEBHOOK_SECRET = 'a-webhook-secret-of-more-than-32-bytes-for-tests';
const children: ChildProcess[] = [];

type Running = ServeProcess;

/** `fileconv serve` as its own process; resolves once it listens. */
async function serve(data: string, env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const running = await startServeProcess(['--data', data, '--no-log', '--no-web'], {
    ...process.env,
    ...env,
  });
  children.push(running.child);
  return running;
}

function kill9(running: Running): Promise<void> {
  return new Promise((resolve) => {
    running.child.once('exit', () => resolve());
    running.child.kill('SIGKILL');
  });
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
});

const png = () =>
  sharp({ create: { width: 16, height: 16, channels: 3, background: '#0a8' } })
    .png()
    .toBuffer();

/** Flow B: upload and convert one PNG; the status and error code of the convert. */
async function convertOnce(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; code?: string }> {
  const form = new FormData();
  form.set('file', new Blob([await png()], { type: 'image/png' }), 'dot.png');
  const upload = await fetch(`${url}/api/upload`, { method: 'POST', body: form, headers });
  if (upload.status !== 200)
    return { status: upload.status, code: ((await upload.json()) as ErrorBody).error?.code };
  const { fileId, fileName } = (await upload.json()) as { fileId: string; fileName: string };
  const converted = await fetch(`${url}/api/convert`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ fileId, fileName, targetFormat: 'jpg' }),
  });
  const body = (await converted.json()) as ErrorBody;
  return { status: converted.status, ...(body.error ? { code: body.error.code } : {}) };
}

/** Attempts made so far of the one pending webhook delivery in the database (0 when none). */
function pendingAttempts(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const record = db.prepare('SELECT record FROM webhook_deliveries').pluck().get() as string | undefined;
    return record ? (JSON.parse(record) as { attempts: number }).attempts : 0;
  } finally {
    db.close();
  }
}

interface ErrorBody {
  error?: { code: string };
}

describe('fileconv serve after a SIGKILL', () => {
  it('keeps an upload and a job killed the moment their ids were answered, and converts the job', async () => {
    const data = await tempDir();
    const first = await serve(data);
    const image = await png();
    // Flow B's upload: the file id is answered.
    const form = new FormData();
    form.set('file', new Blob([image], { type: 'image/png' }), 'dot.png');
    const upload = (await (
      await fetch(`${first.url}/api/upload`, { method: 'POST', body: form })
    ).json()) as {
      fileId: string;
      fileName: string;
    };
    // Flow A's job: answered with its id, then killed at once (it may not have started).
    const post = (path: string, body: unknown) =>
      fetch(`${first.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const grant = (await (
      await post('/api/files/get-upload-url', {
        fileName: 'dot.png',
        fileSize: image.length,
        contentType: 'image/png',
      })
    ).json()) as { uploadUrl: string; fileKey: string };
    const put = await fetch(grant.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: image,
    });
    expect(put.status).toBe(200);
    const created = await post('/api/jobs/create', {
      fileKey: grant.fileKey,
      sourceFormat: 'png',
      targetFormat: 'webp',
      fileSize: image.length,
    });
    expect(created.status).toBe(200);
    const { jobId } = (await created.json()) as { jobId: string };
    await kill9(first);

    const second = await serve(data);
    // The job is there and runs to its end after the restart; its result decodes as the WebP of the PNG.
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${second.url}/api/jobs/${jobId}`)).json()) as { status: string }).status,
        { timeout: 30_000 },
      )
      .toBe('completed');
    const view = (await (await fetch(`${second.url}/api/jobs/${jobId}`)).json()) as { downloadUrl: string };
    const result = Buffer.from(await (await fetch(view.downloadUrl)).arrayBuffer());
    expect(await sharp(result).metadata()).toMatchObject({ format: 'webp', width: 16, height: 16 });
    // The upload is there too: it converts.
    const converted = await fetch(`${second.url}/api/convert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileId: upload.fileId, fileName: upload.fileName, targetFormat: 'jpg' }),
    });
    expect(converted.status).toBe(200);
  });

  it('still refuses the 6th Free conversion of the day', async () => {
    const data = await tempDir();
    const first = await serve(data);
    for (let index = 0; index < 5; index++) expect(await convertOnce(first.url)).toEqual({ status: 200 });
    await kill9(first);
    const second = await serve(data);
    expect(await convertOnce(second.url)).toEqual({ status: 429, code: 'QUOTA_EXCEEDED' });
  });

  it('still refuses an API key revoked before the kill', async () => {
    const data = await tempDir();
    const run = promisify(execFile);
    const created = await run(
      process.execPath,
      [...CLI, 'keys', 'create', '--data', data, '--plan', 'plus', '--account', 'acct-1', '--json'],
      { cwd: ROOT },
    );
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    const first = await serve(data);
    const auth = { authorization: `Bearer ${key}` };
    expect(await convertOnce(first.url, auth)).toEqual({ status: 200 });
    // Revoked by the CLI while the server runs: refused at once, without a restart.
    await run(process.execPath, [...CLI, 'keys', 'revoke', id, '--data', data], { cwd: ROOT });
    expect(await convertOnce(first.url, auth)).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    await kill9(first);
    const second = await serve(data);
    expect(await convertOnce(second.url, auth)).toEqual({ status: 401, code: 'UNAUTHORIZED' });
  });

  describe('webhooks', () => {
    let receiver: Server | undefined;
    afterAll(() => new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve())));

    it('delivers, after the restart, a webhook whose receiver was down before the kill', async () => {
      const answers: number[] = [];
      let status = 503;
      const deliveries: string[] = [];
      receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          deliveries.push(String(req.headers['fileconv-delivery']));
          answers.push(status);
          res.writeHead(status).end();
        });
      });
      await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', () => resolve()));
      const port = (receiver.address() as { port: number }).port;
      const env = { FILECONV_WEBHOOK_SECRET: WEBHOOK_SECRET, FILECONV_WEBHOOK_ALLOW_PRIVATE: '1' };
      const data = await tempDir();
      const first = await serve(data, env);

      // A name, not a literal address: job creation refuses private IPs outright.
      const jobId = await createWebhookJobOverHttp(first.url, await png(), `http://localhost:${port}/hook`);
      await expect.poll(() => answers.length, { timeout: 20_000 }).toBeGreaterThan(0);
      // The failed attempt is recorded and its retry scheduled in the database; then the kill.
      // (A kill in the middle of an attempt leaves the delivery leased: it is retried once the
      // lease, a minute by default, has run out.)
      await expect
        .poll(() => pendingAttempts(join(data, 'fileconv.db')), { timeout: 10_000 })
        .toBeGreaterThan(0);
      await kill9(first);
      const missed = answers.length;

      status = 200;
      const second = await serve(data, env);
      await expect.poll(() => answers.at(-1), { timeout: 20_000 }).toBe(200);
      // The same delivery (receivers dedupe by its id), retried, not made anew.
      expect(new Set(deliveries).size).toBe(1);
      expect(answers.length).toBeGreaterThan(missed);
      const view = (await (await fetch(`${second.url}/api/jobs/${jobId}`)).json()) as Record<string, unknown>;
      expect(view.status).toBe('completed');
      await expect
        .poll(
          async () =>
            (
              (await (await fetch(`${second.url}/api/jobs/${jobId}`)).json()) as {
                webhook?: { status: string };
              }
            ).webhook?.status,
          {
            timeout: 10_000,
          },
        )
        .toBe('delivered');
    });
  });
});

describe('one fileconv serve per data dir', () => {
  it('refuses a second server on the same data dir, naming the first, and starts once the first was killed', async () => {
    const data = await tempDir();
    const first = await serve(data);
    const run = promisify(execFile);
    const refused = await run(
      process.execPath,
      [...CLI, 'serve', '--data', data, '--port', '0', '--host', '127.0.0.1', '--no-log'],
      { cwd: ROOT },
    ).catch((error: { code: number; stderr: string }) => error);
    expect((refused as { code: number }).code).toBe(1);
    expect((refused as { stderr: string }).stderr).toContain(
      `Another fileconv serve (pid ${first.child.pid}) is using the data dir ${data}`,
    );
    await kill9(first);
    const second = await serve(data);
    expect(await convertOnce(second.url)).toEqual({ status: 200 });
  });
});
