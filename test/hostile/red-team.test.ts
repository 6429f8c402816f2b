/**
 * The red-team run of issue 14, replayed: one real `fileconv serve` process, and per probe class
 * the hostile requests a user sent it over HTTP, each answered with its exact status and stable
 * error code. After every test the server still answers its health check; where a probe could
 * reach something else (a listener on 127.0.0.1, another client's file), that nothing happened is
 * checked too. Many classes are also covered in depth elsewhere (named in each block); this file
 * is the one suite that keeps the whole red-team run holding against the shipped server.
 *
 * Anonymous clients are told apart by IP and limited per IP, so each test is a client (or two)
 * of its own: a fresh 127.x.y.z source address (every one reaches a server on 127.0.0.1).
 *
 * Every probe goes through engines that are npm packages (sharp, mammoth, exceljs) or is refused
 * before any converter runs, so nothing here needs LibreOffice or an ffmpeg binary: the paths
 * taken (docx -> md by mammoth, xlsx -> csv by exceljs) are the same with them installed.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sign, signingKey } from '../../src/core/signing.js';
import { DEFAULT_ZIP_LIMITS } from '../../src/kit/zip-safety.js';
import { pngClaiming } from '../../src/testing/bad-inputs.js';
import { exited, type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { fixture } from '../helpers/temp.js';
import { readZip, zipBytes } from '../helpers/zip.js';

/** Given to the server, so a test can sign a URL that is genuine but expired. */
const SECRET = 'red-team-signing-secret-at-least-32-bytes';

let serve: ServeProcess;
let data: string;
/** Stands for anything on the server's own machine a hostile input may try to reach. */
let listener: Server;
let listenerHits = 0;
let listenerOrigin = '';
let png: Buffer;

beforeAll(async () => {
  // Its own dir for the whole file (helpers' tempDir() is removed after each test).
  data = await mkdtemp(join(tmpdir(), 'fileconv-red-team-'));
  serve = await startServeProcess(['--data', data, '--no-web', '--no-log'], {
    ...process.env,
    FILECONV_SIGNING_SECRET: SECRET,
  });
  listener = createServer((_req, res) => {
    listenerHits++;
    res.end('#EXTM3U\n');
  });
  listener.on('connection', () => listenerHits++);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerOrigin = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  png = await readFile(fixture('fixture.png'));
  // The first health check loads every engine to report on it.
  expect((await send('/api/health', freshClient())).status).toBe(200);
}, 60_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
  await rm(data, { recursive: true, force: true });
});

afterEach(async () => {
  // Whatever a probe sent, the server is up and answers another client.
  expect(serve.child.exitCode, serve.stderr()).toBeNull();
  const health = await send('/api/health', freshClient());
  expect(health.status, health.text).toBe(200);
});

let clients = 0;
/** A client no other test has been: a loopback source address of its own. */
function freshClient(): string {
  clients++;
  return `127.66.${Math.floor(clients / 250)}.${(clients % 250) + 1}`;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

interface SendOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: Buffer | string;
}

/** One request from `localAddress`; `target` is a path on the server or a URL it handed out. */
function send(target: string, localAddress: string, options: SendOptions = {}): Promise<Answer> {
  const url = target.startsWith('http') ? target : `${serve.url}${target}`;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString() });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function sendJson(path: string, localAddress: string, json: unknown, method = 'POST'): Promise<Answer> {
  return send(path, localAddress, {
    method,
    headers: { 'content-type': 'application/json' },
    body: typeof json === 'string' ? json : JSON.stringify(json),
  });
}

/** The answer is the error `code` with its `status`, in the `{ error: { code, message } }` shape. */
function expectError(answer: Answer, status: number, code: string): void {
  let body: { error?: { code?: unknown; message?: unknown } } = {};
  try {
    body = JSON.parse(answer.text);
  } catch {}
  expect({ status: answer.status, code: body.error?.code }, answer.text).toEqual({ status, code });
  expect(typeof body.error?.message).toBe('string');
}

function json<T = Record<string, unknown>>(answer: Answer): T {
  return JSON.parse(answer.text) as T;
}

const BOUNDARY = '----redteam7MA4YWxkTrZu0gW';

/** A multipart body of `parts` (field name, file name, bytes), with its Content-Type. */
function multipart(parts: { field?: string; name: string; bytes: Buffer }[], boundary = BOUNDARY) {
  const body = Buffer.concat([
    ...parts.flatMap(({ field = 'file', name, bytes }) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      bytes,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

function upload(localAddress: string, bytes: Buffer, name: string): Promise<Answer> {
  const { body, contentType } = multipart([{ name, bytes }]);
  return send('/api/upload', localAddress, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
}

/** Flow B upload that must succeed: the file's id and cleaned name. */
async function uploaded(localAddress: string, bytes: Buffer, name: string) {
  const answer = await upload(localAddress, bytes, name);
  expect(answer.status, answer.text).toBe(200);
  return json<{ fileId: string; fileName: string; size: number }>(answer);
}

function convert(localAddress: string, fileId: string, fileName: string, targetFormat: string) {
  return sendJson('/api/convert', localAddress, { fileId, fileName, targetFormat });
}

/** Flow B from one client, upload and convert: the convert answer. */
async function uploadAndConvert(bytes: Buffer, name: string, target: string, localAddress = freshClient()) {
  const file = await uploaded(localAddress, bytes, name);
  return convert(localAddress, file.fileId, file.fileName, target);
}

/** Flow A upload grant that must succeed. */
async function grant(localAddress: string, fileName: string, fileSize: number, contentType: string) {
  const answer = await sendJson('/api/files/get-upload-url', localAddress, {
    fileName,
    fileSize,
    contentType,
  });
  expect(answer.status, answer.text).toBe(200);
  return json<{ uploadUrl: string; fileKey: string; fileId: string }>(answer);
}

function put(url: string, localAddress: string, bytes: Buffer, contentType: string): Promise<Answer> {
  return send(url, localAddress, { method: 'PUT', headers: { 'content-type': contentType }, body: bytes });
}

interface JobView {
  jobId: string;
  status: string;
  downloadUrl: string | null;
  error: { code: string } | null;
}

/** Polls a job until it settles (a small image converts in well under a second). */
async function settled(localAddress: string, jobId: string): Promise<JobView> {
  for (let poll = 0; poll < 50; poll++) {
    const answer = await send(`/api/jobs/${jobId}`, localAddress);
    expect(answer.status, answer.text).toBe(200);
    const job = json<JobView>(answer);
    if (['completed', 'failed', 'canceled'].includes(job.status)) return job;
    await sleep(200);
  }
  throw new Error(`job ${jobId} did not settle`);
}

/** Flow A all the way for `bytes`: the settled job, for one client. */
async function flowAJob(localAddress: string, bytes: Buffer, name: string, from: string, to: string) {
  const granted = await grant(localAddress, name, bytes.length, 'application/octet-stream');
  expect((await put(granted.uploadUrl, localAddress, bytes, 'application/octet-stream')).status).toBe(200);
  const created = await sendJson('/api/jobs/create', localAddress, {
    fileKey: granted.fileKey,
    sourceFormat: from,
    targetFormat: to,
    fileSize: bytes.length,
  });
  expect(created.status, created.text).toBe(200);
  return settled(localAddress, json<{ jobId: string }>(created).jobId);
}

/** Every file the server stores, relative to its files dir. */
async function storedFiles(): Promise<string[]> {
  const entries = await readdir(join(data, 'files'), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** fixture.<ext> (a zip package) with one part replaced. */
async function withPart(ext: 'docx' | 'xlsx', part: string, bytes: Buffer): Promise<Buffer> {
  const entries = await readZip(fixture(`fixture.${ext}`));
  expect(entries.has(part), `fixture.${ext} has ${part}`).toBe(true);
  entries.set(part, bytes);
  return zipBytes(entries);
}

/**
 * Rewrites the uncompressed size the central directory declares for `entry` (every entry when
 * omitted), as a hostile writer would.
 */
function lieAboutSizes(zip: Buffer, declared: number, entry?: string): Buffer {
  const copy = Buffer.from(zip);
  const signature = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  for (let at = copy.indexOf(signature); at >= 0; at = copy.indexOf(signature, at + 4)) {
    // The uncompressed size sits 24 bytes into a central directory header, the name at 46.
    const name = copy.subarray(at + 46, at + 46 + copy.readUInt16LE(at + 28)).toString('utf8');
    if (entry === undefined || name === entry) copy.writeUInt32LE(declared, at + 24);
  }
  return copy;
}

/** A "billion laughs" DOCTYPE: ten levels of ten references, 10^9 copies of "lol" if expanded. */
function billionLaughs(root: string): string {
  const levels = ['<!ENTITY lol0 "lol">'];
  for (let level = 1; level <= 9; level++) {
    levels.push(`<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`);
  }
  return `<!DOCTYPE ${root} [\n${levels.join('\n')}\n]>\n`;
}

// ---------------------------------------------------------------------------------------------

describe('ownership: another client’s job, file and download are not found', () => {
  // In depth: test/http/flow-b-errors.test.ts, test/http/flow-a-job-errors.test.ts.
  it('Flow B: a foreign fileId and downloadId are 404 NOT_FOUND; the owner still downloads', async () => {
    const owner = freshClient();
    const thief = freshClient();
    const file = await uploaded(owner, png, 'mine.png');
    const converted = await convert(owner, file.fileId, file.fileName, 'webp');
    expect(converted.status, converted.text).toBe(200);
    const { downloadId } = json<{ downloadId: string }>(converted);

    expectError(await convert(thief, file.fileId, file.fileName, 'jpg'), 404, 'NOT_FOUND');
    expectError(await send(`/api/download?id=${downloadId}`, thief), 404, 'NOT_FOUND');
    // A Flow B conversion is a job: not to be read, canceled or deleted by someone else either.
    expectError(await send(`/api/jobs/${downloadId}`, thief), 404, 'NOT_FOUND');
    expectError(await send(`/api/jobs/${downloadId}`, thief, { method: 'DELETE' }), 404, 'NOT_FOUND');
    // A Flow A job on the other client's file.
    expectError(
      await sendJson('/api/jobs/create', thief, {
        fileKey: `uploads/${file.fileId}`,
        sourceFormat: 'png',
        targetFormat: 'jpg',
        fileSize: file.size,
      }),
      404,
      'NOT_FOUND',
    );

    const download = await send(`/api/download?id=${downloadId}`, owner);
    expect(download.status).toBe(200);
    expect((await sharp(download.body).metadata()).format).toBe('webp');
    // The same fileKey is good for its owner: the thief was refused for whose it is, not its form.
    const own = await sendJson('/api/jobs/create', owner, {
      fileKey: `uploads/${file.fileId}`,
      sourceFormat: 'png',
      targetFormat: 'jpg',
      fileSize: file.size,
    });
    expect(own.status, own.text).toBe(200);
  });

  it('Flow A: a foreign fileKey and jobId are 404 NOT_FOUND; the owner’s job is intact', async () => {
    const owner = freshClient();
    const thief = freshClient();
    const granted = await grant(owner, 'mine.png', png.length, 'image/png');
    expect((await put(granted.uploadUrl, owner, png, 'image/png')).status).toBe(200);
    const body = {
      fileKey: granted.fileKey,
      sourceFormat: 'png',
      targetFormat: 'webp',
      fileSize: png.length,
    };
    expectError(await sendJson('/api/jobs/create', thief, body), 404, 'NOT_FOUND');
    const created = await sendJson('/api/jobs/create', owner, body);
    expect(created.status, created.text).toBe(200);
    const { jobId } = json<{ jobId: string }>(created);
    expectError(await send(`/api/jobs/${jobId}`, thief), 404, 'NOT_FOUND');
    expectError(await send(`/api/jobs/${jobId}`, thief, { method: 'DELETE' }), 404, 'NOT_FOUND');
    expectError(await send(`/api/download?id=${jobId}`, thief), 404, 'NOT_FOUND');

    const job = await settled(owner, jobId);
    expect(job.status).toBe('completed');
    const result = await send(job.downloadUrl!, owner);
    expect(result.status).toBe(200);
    expect((await sharp(result.body).metadata()).format).toBe('webp');
  });
});

describe('signatures: tampered and expired upload and download URLs', () => {
  // In depth: test/http/flow-a-upload-errors.test.ts (upload URLs), test/signing.test.ts.
  const key = signingKey(SECRET);
  const past = () => Math.floor(Date.now() / 1000) - 60;

  function withQuery(url: string, changes: Record<string, string | null>): string {
    const parsed = new URL(url);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) parsed.searchParams.delete(name);
      else parsed.searchParams.set(name, value);
    }
    return parsed.toString();
  }

  /** The signature with its first character changed. */
  function flipped(signature: string): string {
    return (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
  }

  it('upload URL: tampered signature, expiry, file id or no signature is 403 SIGNATURE_INVALID; expired is 403 URL_EXPIRED; nothing stored', async () => {
    const client = freshClient();
    const granted = await grant(client, 'photo.png', png.length, 'image/png');
    const other = await grant(client, 'other.png', png.length, 'image/png');
    const signature = new URL(granted.uploadUrl).searchParams.get('signature')!;
    const expires = Number(new URL(granted.uploadUrl).searchParams.get('expires'));
    const forged = [
      withQuery(granted.uploadUrl, { signature: flipped(signature) }),
      withQuery(granted.uploadUrl, { expires: String(expires + 86_400) }),
      withQuery(granted.uploadUrl, { signature: null }),
      // The first grant's signature on the second grant's file.
      granted.uploadUrl.replace(granted.fileId, other.fileId),
    ];
    for (const url of forged) expectError(await put(url, client, png, 'image/png'), 403, 'SIGNATURE_INVALID');
    // Signed with the server's key, but expired a minute ago.
    const expired = withQuery(granted.uploadUrl, {
      expires: String(past()),
      signature: sign(key, {
        purpose: 'upload',
        id: granted.fileId,
        expires: past(),
        bound: ['image/png', png.length],
      }),
    });
    expectError(await put(expired, client, png, 'image/png'), 403, 'URL_EXPIRED');
    // Neither file holds bytes: a job on either is refused as not uploaded.
    for (const fileKey of [granted.fileKey, other.fileKey]) {
      expectError(
        await sendJson('/api/jobs/create', client, {
          fileKey,
          sourceFormat: 'png',
          targetFormat: 'webp',
          fileSize: png.length,
        }),
        409,
        'NOT_UPLOADED',
      );
    }
  });

  it('download URL: tampered signature, expiry or job id is 403 SIGNATURE_INVALID; expired is 403 URL_EXPIRED', async () => {
    const client = freshClient();
    const job = await flowAJob(client, png, 'photo.png', 'png', 'webp');
    const other = await flowAJob(client, png, 'other.png', 'png', 'jpg');
    expect([job.status, other.status]).toEqual(['completed', 'completed']);
    const url = job.downloadUrl!;
    const signature = new URL(url).searchParams.get('signature')!;
    const expires = Number(new URL(url).searchParams.get('expires'));
    const forged = [
      withQuery(url, { signature: flipped(signature) }),
      withQuery(url, { expires: String(expires + 86_400) }),
      withQuery(url, { signature: null }),
      url.replace(job.jobId, other.jobId),
    ];
    // From another client too: the signature is the credential, and it does not hold.
    for (const forgery of forged) {
      expectError(await send(forgery, freshClient()), 403, 'SIGNATURE_INVALID');
    }
    const expired = withQuery(url, {
      expires: String(past()),
      signature: sign(key, { purpose: 'download', id: job.jobId, expires: past() }),
    });
    expectError(await send(expired, client), 403, 'URL_EXPIRED');
    // The genuine URL still works.
    const genuine = await send(url, client);
    expect(genuine.status).toBe(200);
    expect((await sharp(genuine.body).metadata()).format).toBe('webp');
  });
});

describe('names: path traversal, control and bidi characters in file names', () => {
  // In depth: test/names.test.ts (each class of character), test/http/flows.test.ts.
  it('Flow B: paths are dropped, a right-to-left override removed; the download name is clean', async () => {
    const client = freshClient();
    for (const given of ['../../../../etc/cron.d/evil.png', '..\\..\\windows\\evil.png', '/abs/evil.png']) {
      expect((await uploaded(client, png, given)).fileName).toBe('evil.png');
    }
    const file = await uploaded(client, png, 'invoice\u202Egpj.png');
    expect(file.fileName).toBe('invoicegpj.png');
    const converted = await convert(client, file.fileId, 'invoice\u202Egpj.png', 'webp');
    expect(converted.status, converted.text).toBe(200);
    const { downloadId, outputName } = json<{ downloadId: string; outputName: string }>(converted);
    expect(outputName).toBe('invoicegpj.webp');
    const download = await send(`/api/download?id=${downloadId}`, client);
    expect(download.headers['content-disposition']).toBe('attachment; filename=invoicegpj.webp');
    // Stored under ids the server made, never under a name the client sent.
    expect((await storedFiles()).filter((path) => /evil|invoice|\.\./.test(path))).toEqual([]);
  });

  it('Flow B: control characters in the part header are 400 INVALID_REQUEST, nothing stored', async () => {
    const before = await storedFiles();
    expectError(await upload(freshClient(), png, 'bad\u0007name\u001b.png'), 400, 'INVALID_REQUEST');
    expect(await storedFiles()).toEqual(before);
  });

  it('Flow A: a traversal name with control and bidi characters is cleaned; 10 kB of name is 400', async () => {
    const client = freshClient();
    const granted = await grant(client, '../../etc/pass\u0000wd\u202Egnp.png', png.length, 'image/png');
    expect((await put(granted.uploadUrl, client, png, 'image/png')).status).toBe(200);
    const created = await sendJson('/api/jobs/create', client, {
      fileKey: granted.fileKey,
      sourceFormat: 'png',
      targetFormat: 'webp',
      fileSize: png.length,
    });
    expect(created.status, created.text).toBe(200);
    const view = json<{ fileName: string }>(await send(`/api/jobs/${json(created).jobId}`, client));
    expect(view.fileName).toBe('passwdgnp.png');
    expectError(
      await sendJson('/api/files/get-upload-url', client, {
        fileName: `${'a'.repeat(10_000)}.png`,
        fileSize: png.length,
        contentType: 'image/png',
      }),
      400,
      'INVALID_REQUEST',
    );
  });
});

describe('JSON abuse: nesting, size, types, prototype keys', () => {
  // In depth: test/http/flow-a-upload-errors.test.ts and flow-a-job-errors.test.ts (types).
  it('deeply nested JSON is 400 INVALID_REQUEST', async () => {
    const client = freshClient();
    const depth = 30_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expectError(
      await sendJson('/api/convert', client, `{"fileId":${deep},"fileName":"a.png","targetFormat":"webp"}`),
      400,
      'INVALID_REQUEST',
    );
    expectError(await sendJson('/api/files/get-upload-url', client, deep), 400, 'INVALID_REQUEST');
    const objects = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    expectError(await sendJson('/api/jobs/create', client, `{"fileKey":${objects}}`), 400, 'INVALID_REQUEST');
  });

  it('huge JSON is 413 REQUEST_TOO_LARGE: declared, chunked, and as a gzip bomb', async () => {
    const client = freshClient();
    const huge = JSON.stringify({
      fileId: 'x',
      fileName: 'a.png',
      targetFormat: 'webp',
      pad: 'x'.repeat(2 ** 20),
    });
    expectError(await sendJson('/api/convert', client, huge), 413, 'REQUEST_TOO_LARGE');
    // No Content-Length: the limit holds on the bytes read.
    const chunked = await new Promise<Answer>((resolve, reject) => {
      const req = request(
        `${serve.url}/api/files/get-upload-url`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, localAddress: client },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString() });
          });
        },
      );
      req.on('error', reject);
      for (let at = 0; at < huge.length; at += 64 * 1024) req.write(huge.slice(at, at + 64 * 1024));
      req.end();
    });
    expectError(chunked, 413, 'REQUEST_TOO_LARGE');
    // 60 KB of gzip inflating to 64 MB of JSON.
    const bomb = gzipSync(`{"pad":"${' '.repeat(64 * 2 ** 20)}"}`);
    expect(bomb.length).toBeLessThan(100 * 1024);
    expectError(
      await send('/api/jobs/create', client, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: bomb,
      }),
      413,
      'REQUEST_TOO_LARGE',
    );
  });

  it('wrong types are 400 INVALID_REQUEST naming the field; not JSON at all is 400 too', async () => {
    const client = freshClient();
    const wrong = await sendJson('/api/files/get-upload-url', client, {
      fileName: ['a.png'],
      fileSize: '100',
      contentType: 'image/png',
    });
    expectError(wrong, 400, 'INVALID_REQUEST');
    const fields = json<{ error: { details: { issues: { field: string }[] } } }>(
      wrong,
    ).error.details.issues.map((issue) => issue.field);
    expect(fields.sort()).toEqual(['fileName', 'fileSize']);
    expectError(
      // 1e400 parses as Infinity.
      await sendJson(
        '/api/jobs/create',
        client,
        '{"fileKey":1,"sourceFormat":null,"targetFormat":{},"fileSize":1e400}',
      ),
      400,
      'INVALID_REQUEST',
    );
    expectError(await sendJson('/api/convert', client, '"just a string"'), 400, 'INVALID_REQUEST');
    expectError(await sendJson('/api/convert', client, '{"fileId": '), 400, 'INVALID_REQUEST');
  });

  it('__proto__ and constructor keys pollute nothing: refused or ignored, and the next request is unaffected', async () => {
    const client = freshClient();
    const file = await uploaded(client, png, 'photo.png');
    const polluting = `{"fileId":"${file.fileId}","fileName":"photo.png","targetFormat":"webp","__proto__":{"targetFormat":"jpg","isAdmin":true},"constructor":{"prototype":{"polluted":true}}}`;
    const converted = await sendJson('/api/convert', client, polluting);
    expect(converted.status, converted.text).toBe(200);
    expect(json(converted).outputName).toBe('photo.webp');
    // In options, where the keys reach the converter's option schema: not applied.
    const resized = await sendJson(
      '/api/convert',
      client,
      `{"fileId":"${file.fileId}","fileName":"photo.png","targetFormat":"webp","options":{"__proto__":{"width":5}}}`,
    );
    expect(resized.status, resized.text).toBe(200);
    const result = await send(`/api/download?id=${json(resized).downloadId}`, client);
    expect((await sharp(result.body).metadata()).width).toBe((await sharp(png).metadata()).width);
    const granted = await sendJson(
      '/api/files/get-upload-url',
      client,
      `{"fileName":"a.png","fileSize":10,"contentType":"image/png","__proto__":{"fileSize":999999999999}}`,
    );
    expect(granted.status, granted.text).toBe(200);
    // The grant is for the 10 bytes declared, not the size under __proto__.
    const { uploadUrl } = json<{ uploadUrl: string }>(granted);
    expect((await put(uploadUrl, client, Buffer.alloc(10), 'image/png')).status).toBe(200);
    // Another client's request afterwards sees no polluted defaults.
    const other = freshClient();
    const plain = await uploadAndConvert(png, 'plain.png', 'jpg', other);
    expect(plain.status, plain.text).toBe(200);
    expect(json(plain)).toEqual({ downloadId: expect.any(String), outputName: 'plain.jpg' });
  });
});

describe('multipart abuse', () => {
  // In depth: test/http/flow-b-errors.test.ts, test/http/upload-disconnect.test.ts.
  async function expectRefusedUpload(
    body: Buffer,
    contentType: string | undefined,
    status: number,
    code: string,
  ): Promise<void> {
    const before = await storedFiles();
    const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
    expectError(await send('/api/upload', freshClient(), { method: 'POST', headers, body }), status, code);
    expect(await storedFiles()).toEqual(before);
  }

  it('two files: 400 INVALID_REQUEST, the first not kept', async () => {
    const { body, contentType } = multipart([
      { name: 'a.png', bytes: png },
      { name: 'b.png', bytes: png },
    ]);
    await expectRefusedUpload(body, contentType, 400, 'INVALID_REQUEST');
  });

  it('no file, a file in another field, not multipart: 400 INVALID_REQUEST', async () => {
    const empty = Buffer.from(`--${BOUNDARY}--\r\n`);
    await expectRefusedUpload(empty, `multipart/form-data; boundary=${BOUNDARY}`, 400, 'INVALID_REQUEST');
    const field = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n\r\nnot a file\r\n--${BOUNDARY}--\r\n`,
    );
    await expectRefusedUpload(field, `multipart/form-data; boundary=${BOUNDARY}`, 400, 'INVALID_REQUEST');
    const other = multipart([{ field: 'upload', name: 'a.png', bytes: png }]);
    await expectRefusedUpload(other.body, other.contentType, 400, 'INVALID_REQUEST');
    await expectRefusedUpload(png, 'image/png', 400, 'INVALID_REQUEST');
    await expectRefusedUpload(png, undefined, 400, 'INVALID_REQUEST');
  });

  it('a bad boundary: none declared, an empty one, another than the body’s: 400 INVALID_REQUEST', async () => {
    const { body } = multipart([{ name: 'a.png', bytes: png }]);
    await expectRefusedUpload(body, 'multipart/form-data', 400, 'INVALID_REQUEST');
    await expectRefusedUpload(body, 'multipart/form-data; boundary=""', 400, 'INVALID_REQUEST');
    await expectRefusedUpload(body, 'multipart/form-data; boundary=somethingelse', 400, 'INVALID_REQUEST');
    // The body's boundary with one character dropped from every delimiter line.
    const broken = Buffer.from(
      body.toString('latin1').replaceAll(`--${BOUNDARY}`, `--${BOUNDARY.slice(1)}`),
      'latin1',
    );
    await expectRefusedUpload(broken, `multipart/form-data; boundary=${BOUNDARY}`, 400, 'INVALID_REQUEST');
  });

  it('a huge part header: 400 INVALID_REQUEST', async () => {
    const body = Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nX-Pad: ${'x'.repeat(1024 * 1024)}\r\n\r\n`,
      ),
      png,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    await expectRefusedUpload(body, `multipart/form-data; boundary=${BOUNDARY}`, 400, 'INVALID_REQUEST');
  });

  it('a truncated body (the closing boundary never comes): 400 INVALID_REQUEST, nothing kept', async () => {
    const { body, contentType } = multipart([{ name: 'a.png', bytes: png }]);
    await expectRefusedUpload(body.subarray(0, body.length - 200), contentType, 400, 'INVALID_REQUEST');
  });
});

describe('pixel bombs', () => {
  // In depth: test/converters/sharp-inputs.test.ts ('pixel limits').
  it('a PNG declaring 50000x50000 is 422 INPUT_LIMIT_EXCEEDED, in Flow B and Flow A', async () => {
    const bomb = pngClaiming(50_000, 50_000);
    expectError(await uploadAndConvert(bomb, 'bomb.png', 'webp'), 422, 'INPUT_LIMIT_EXCEEDED');
    const job = await flowAJob(freshClient(), bomb, 'bomb.png', 'png', 'jpg');
    expect([job.status, job.error?.code]).toEqual(['failed', 'INPUT_LIMIT_EXCEEDED']);
  });

  it('an SVG declaring 100000x100000 is 422 INPUT_LIMIT_EXCEEDED', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="10" height="10"/></svg>',
    );
    expectError(await uploadAndConvert(svg, 'huge.svg', 'png'), 422, 'INPUT_LIMIT_EXCEEDED');
  });
});

describe('zip bombs in Office files', () => {
  // In depth: test/converters/zip-safety.test.ts; test/hostile/serve-bombs.test.ts (inflating docx).
  const inflated = () => Buffer.alloc(DEFAULT_ZIP_LIMITS.ratioFloorBytes + 4 * 1024 * 1024, 0x20);

  it('a docx whose document part inflates past the ratio limit is 422 INPUT_LIMIT_EXCEEDED', async () => {
    const docx = await withPart('docx', 'word/document.xml', inflated());
    expect(docx.length).toBeLessThan(200 * 1024);
    expectError(await uploadAndConvert(docx, 'bomb.docx', 'md'), 422, 'INPUT_LIMIT_EXCEEDED');
  });

  it('an xlsx whose sheet inflates past the ratio limit is 422 INPUT_LIMIT_EXCEEDED', async () => {
    const xlsx = await withPart('xlsx', 'xl/worksheets/sheet1.xml', inflated());
    expectError(await uploadAndConvert(xlsx, 'bomb.xlsx', 'csv'), 422, 'INPUT_LIMIT_EXCEEDED');
  });

  it('a docx whose header says a part is smaller than it inflates is 422 INPUT_LIMIT_EXCEEDED', async () => {
    const honest = await withPart('docx', 'word/document.xml', Buffer.alloc(4 * 1024 * 1024, 0x20));
    const answer = await uploadAndConvert(
      lieAboutSizes(honest, 1000, 'word/document.xml'),
      'liar.docx',
      'md',
    );
    expectError(answer, 422, 'INPUT_LIMIT_EXCEEDED');
    expect(answer.text).toMatch(/declared size/);
    // Declared larger than they are (the small parts), the package is not a readable zip.
    expectError(await uploadAndConvert(lieAboutSizes(honest, 1000), 'liar.docx', 'md'), 422, 'CORRUPT_INPUT');
  });
});

describe('SVG bombs and external references', () => {
  // In depth: test/converters/sharp-inputs.test.ts ('SVG references'), src/testing/bad-inputs.ts.
  const svg = (body: string, prolog = '') =>
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n${prolog}<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">${body}<rect width="20" height="20"/></svg>\n`,
    );

  it.each([
    ['an xlink:href to file://', () => svg('<image xlink:href="file:///etc/passwd" width="5" height="5"/>')],
    [
      'an href to http://127.0.0.1',
      () => svg(`<image href="${listenerOrigin}/a.png" width="5" height="5"/>`),
    ],
    [
      'a CSS url() to http://127.0.0.1',
      () => svg(`<style>rect { fill: url(${listenerOrigin}/p.svg#g) }</style>`),
    ],
    [
      'an external entity',
      () => svg('<text>&x;</text>', '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'),
    ],
    ['billion laughs', () => svg('<text>&lol9;</text>', billionLaughs('svg'))],
  ])('%s is 422 UNSAFE_INPUT; nothing connected', async (_name, make) => {
    const bytes = make();
    expectError(await uploadAndConvert(bytes, 'drawing.svg', 'png'), 422, 'UNSAFE_INPUT');
    // Named as a PNG the bytes are still recognised as an SVG: refused, never rendered.
    expectError(await uploadAndConvert(bytes, 'drawing.png', 'webp'), 422, 'CONTENT_MISMATCH');
    expect(listenerHits).toBe(0);
  });
});

describe('XML bombs in Office files', () => {
  // In depth: test/converters/mammoth.test.ts, test/converters/exceljs.test.ts.
  it('a docx whose document is a billion-laughs DOCTYPE is 422 CORRUPT_INPUT, not expanded', async () => {
    const entries = await readZip(fixture('fixture.docx'));
    const xml = entries
      .get('word/document.xml')!
      .toString('utf8')
      .replace(/^<\?xml[^>]*>\s*/, '');
    const docx = await withPart(
      'docx',
      'word/document.xml',
      Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?>\n${billionLaughs('w:document')}${xml.replace(/(<w:t[\s>][^>]*>|<w:t>)/, '$1&lol9;')}`,
      ),
    );
    const answer = await uploadAndConvert(docx, 'laughs.docx', 'md');
    expectError(answer, 422, 'CORRUPT_INPUT');
  });

  it('an xlsx whose shared strings are a billion-laughs DOCTYPE is 422 CORRUPT_INPUT, not expanded', async () => {
    const entries = await readZip(fixture('fixture.xlsx'));
    const part = entries.has('xl/sharedStrings.xml') ? 'xl/sharedStrings.xml' : 'xl/worksheets/sheet1.xml';
    const xml = entries
      .get(part)!
      .toString('utf8')
      .replace(/^<\?xml[^>]*>\s*/, '');
    const root = /<([\w:]+)[\s>]/.exec(xml)![1]!;
    const xlsx = await withPart(
      'xlsx',
      part,
      Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?>\n${billionLaughs(root)}${xml.replace(/(<t[\s>][^>]*>|<t>)/, '$1&lol9;')}`,
      ),
    );
    // The parser loads no DTD: the entity is undefined, nothing expands.
    const answer = await uploadAndConvert(xlsx, 'laughs.xlsx', 'csv');
    expectError(answer, 422, 'CORRUPT_INPUT');
    expect(answer.text).toMatch(/undefined entity/);
  });
});

describe('mislabels: content that is not what its name or declared format says', () => {
  // In depth: test/http/flow-a-job-errors.test.ts, test/format-detection.test.ts.
  it('a PNG named .docx or declared pdf is 422 CONTENT_MISMATCH (Flow B and Flow A)', async () => {
    expectError(await uploadAndConvert(png, 'report.docx', 'md'), 422, 'CONTENT_MISMATCH');
    expectError(await uploadAndConvert(png, 'report.pdf', 'txt'), 422, 'CONTENT_MISMATCH');
    const client = freshClient();
    const granted = await grant(client, 'report.pdf', png.length, 'application/pdf');
    expect((await put(granted.uploadUrl, client, png, 'application/pdf')).status).toBe(200);
    expectError(
      await sendJson('/api/jobs/create', client, {
        fileKey: granted.fileKey,
        sourceFormat: 'pdf',
        targetFormat: 'txt',
        fileSize: png.length,
      }),
      422,
      'CONTENT_MISMATCH',
    );
  });

  it('a size that is not the upload’s is 409 SIZE_MISMATCH (the PUT and the job)', async () => {
    const client = freshClient();
    const granted = await grant(client, 'photo.png', png.length, 'image/png');
    expectError(
      await put(granted.uploadUrl, client, Buffer.concat([png, Buffer.alloc(1000)]), 'image/png'),
      409,
      'SIZE_MISMATCH',
    );
    expectError(
      await put(granted.uploadUrl, client, png.subarray(0, 100), 'image/png'),
      409,
      'SIZE_MISMATCH',
    );
    expect((await put(granted.uploadUrl, client, png, 'image/png')).status).toBe(200);
    expectError(
      await sendJson('/api/jobs/create', client, {
        fileKey: granted.fileKey,
        sourceFormat: 'png',
        targetFormat: 'webp',
        fileSize: png.length + 1,
      }),
      409,
      'SIZE_MISMATCH',
    );
  });
});

describe('polyglots: a file valid as two formats', () => {
  it('a PNG with a docx appended converts as the PNG it starts with, and is no docx', async () => {
    const docx = await readFile(fixture('fixture.docx'));
    const polyglot = Buffer.concat([png, docx]);
    const client = freshClient();
    const converted = await uploadAndConvert(polyglot, 'both.png', 'webp', client);
    expect(converted.status, converted.text).toBe(200);
    const download = await send(`/api/download?id=${json(converted).downloadId}`, client);
    const source = await sharp(png).metadata();
    const result = await sharp(download.body).metadata();
    expect([result.format, result.width, result.height]).toEqual(['webp', source.width, source.height]);
    expectError(await uploadAndConvert(polyglot, 'both.docx', 'md'), 422, 'CONTENT_MISMATCH');
  });

  it('an MP3 (ID3 tag) that is also an HLS playlist is 422 CONTENT_MISMATCH; nothing connected', async () => {
    const id3 = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]);
    const playlist = Buffer.from(
      `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n${listenerOrigin}/s.ts\n#EXT-X-ENDLIST\n`,
    );
    expectError(
      await uploadAndConvert(Buffer.concat([id3, playlist]), 'song.mp3', 'wav'),
      422,
      'CONTENT_MISMATCH',
    );
    expect(listenerHits).toBe(0);
  });
});

describe('playlists: HLS and ffconcat lists naming local files and URLs', () => {
  // In depth (to ffmpeg itself, where they are UNSAFE_INPUT): test/converters/ffmpeg-inputs.test.ts.
  // Through the service they never reach ffmpeg: their bytes are text, which no media format is.
  const lists = () => ({
    m3u8: `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n${listenerOrigin}/segment.ts\n#EXTINF:1,\nfile:///etc/passwd\n#EXTINF:1,\n/etc/passwd\n#EXT-X-ENDLIST\n`,
    ffconcat: `ffconcat version 1.0\nfile /etc/passwd\nfile ${listenerOrigin}/clip.mp4\n`,
  });

  it.each(['m3u8', 'ffconcat'] as const)(
    'a %s list named as a video is 422 CONTENT_MISMATCH; nothing connected',
    async (kind) => {
      const bytes = Buffer.from(lists()[kind]);
      expectError(await uploadAndConvert(bytes, 'clip.mp4', 'webm'), 422, 'CONTENT_MISMATCH');
      expectError(await uploadAndConvert(bytes, 'clip.ts', 'mp4'), 422, 'CONTENT_MISMATCH');
      // Under its own name it is text, which does not become a video.
      expectError(await uploadAndConvert(bytes, `list.${kind}`, 'mp4'), 422, 'UNSUPPORTED_CONVERSION');
      expect(listenerHits).toBe(0);
    },
  );

  it('declared as m3u8 in Flow A it is 415 UNSUPPORTED_FORMAT', async () => {
    const client = freshClient();
    const bytes = Buffer.from(lists().m3u8);
    const granted = await grant(client, 'list.m3u8', bytes.length, 'application/vnd.apple.mpegurl');
    expect((await put(granted.uploadUrl, client, bytes, 'application/vnd.apple.mpegurl')).status).toBe(200);
    expectError(
      await sendJson('/api/jobs/create', client, {
        fileKey: granted.fileKey,
        sourceFormat: 'm3u8',
        targetFormat: 'mp4',
        fileSize: bytes.length,
      }),
      415,
      'UNSUPPORTED_FORMAT',
    );
    expect(listenerHits).toBe(0);
  });
});

describe('slow clients', () => {
  /** A connection that sends the start of a request and then nothing more. */
  function slowConnection(localAddress: string, start: string): Promise<Socket> {
    const { port } = new URL(serve.url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress }, () => {
        socket.write(start);
        resolve(socket);
      });
      socket.on('error', reject);
    });
  }

  it('20 connections trickling headers and 20 trickling bodies block no other client', async () => {
    const sockets: Socket[] = [];
    try {
      for (let index = 0; index < 20; index++) {
        // Slowloris: headers that never end.
        sockets.push(await slowConnection(freshClient(), 'GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: '));
        // A body that never comes: 10 MB announced, a few bytes sent.
        sockets.push(
          await slowConnection(
            freshClient(),
            `POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 10000000\r\n\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.png"\r\n\r\n`,
          ),
        );
      }
      // They keep trickling while someone else uses the service from start to finish.
      const trickle = setInterval(() => {
        for (const socket of sockets) if (!socket.destroyed) socket.write('x');
      }, 100);
      try {
        const client = freshClient();
        const converted = await uploadAndConvert(png, 'photo.png', 'webp', client);
        expect(converted.status, converted.text).toBe(200);
        const download = await send(`/api/download?id=${json(converted).downloadId}`, client);
        expect(download.status).toBe(200);
        expect((await sharp(download.body).metadata()).format).toBe('webp');
      } finally {
        clearInterval(trickle);
      }
      // None of the slow requests was answered as if complete.
      expect(sockets.every((socket) => !socket.destroyed && socket.readableLength === 0)).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('spoofed proxies: X-Forwarded-For from an untrusted peer', () => {
  // In depth: test/http/limits-rate.test.ts ('the client IP and X-Forwarded-For').
  it('does not change whose the file is', async () => {
    const spoofer = freshClient();
    const victim = freshClient();
    const answer = await send('/api/upload', spoofer, {
      method: 'POST',
      headers: { 'content-type': multipart([]).contentType, 'x-forwarded-for': victim },
      body: multipart([{ name: 'photo.png', bytes: png }]).body,
    });
    expect(answer.status, answer.text).toBe(200);
    const file = json<{ fileId: string; fileName: string }>(answer);
    // Not the victim's: the file belongs to the socket's address.
    expectError(await convert(victim, file.fileId, file.fileName, 'webp'), 404, 'NOT_FOUND');
    const owned = await convert(spoofer, file.fileId, file.fileName, 'webp');
    expect(owned.status, owned.text).toBe(200);
  });

  it('does not escape the rate limit: the 21st upload-class request is 429 RATE_LIMITED', async () => {
    const client = freshClient();
    for (let index = 0; index < 20; index++) {
      const answer = await send('/api/convert', client, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${index + 1}` },
        body: '{}',
      });
      expectError(answer, 400, 'INVALID_REQUEST');
    }
    const refused = await send('/api/convert', client, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.1' },
      body: '{}',
    });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});
