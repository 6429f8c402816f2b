/**
 * s3rver (a local S3 server) in-process for the S3 storage tests: a free port on 127.0.0.1, a
 * temp directory, buckets created up front, silent. s3rver 3.7 stands in for S3 well for
 * objects, ranges, multipart uploads and presigned-URL expiry, but it lacks three things S3 does,
 * which this helper adds in front of it (each can be turned off to see s3rver as it is):
 *
 * - it does not verify SigV4 signatures at all, so a presigned PUT with another Content-Type or
 *   size would be accepted: `verifyPresignedSignatures` checks presigned (query-string) requests
 *   the way S3 does and answers 403 SignatureDoesNotMatch;
 * - it has no AbortMultipartUpload (DELETE ?uploadId answers 405): `abortMultipartUploads`
 *   implements it by removing the upload's parts, and answers NoSuchUpload, as S3 does, to a
 *   part, a complete, an abort or a ListParts of an upload completed or aborted before (s3rver
 *   would store the part, or fail with 500), and answers ListParts (part numbers only);
 * - it has no ListMultipartUploads (GET ?uploads answers 501 NotImplemented):
 *   `pendingMultipartUploads()` reads the in-progress uploads from s3rver's directory instead.
 *
 * For outage tests, `pause()` takes the server away (connections dropped, the port refusing)
 * and `resume()` brings it back on the same port over the same objects.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** s3rver's built-in account: the only credentials it accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const S3RVER_INSTALL = 'npm install --save-dev s3rver@3.7';

/** The environment that points `fileconv serve` and `worker` at an s3rver's bucket. */
export function s3rverEnv(s3: { endpoint: string; bucket: string }): Record<string, string> {
  return {
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
  };
}

/** The parts of Koa's context the front middleware uses. */
interface KoaContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  status: number;
  type: string;
  body: unknown;
}
type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

/** The part of s3rver's API this helper uses (the package ships no types). */
interface S3rverInstance {
  middleware: KoaMiddleware[];
  run(): Promise<{ port: number; address: string }>;
  close(): Promise<void>;
  /** The node:http server, once run() resolved. */
  httpServer?: import('node:http').Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

let loading: Promise<S3rverClass | null> | undefined;

/** s3rver's class, or null when it cannot be imported (it is CommonJS: the class is the default export). */
export function loadS3rver(): Promise<S3rverClass | null> {
  // A variable specifier: the package has no type declarations.
  const specifier = 's3rver';
  loading ??= import(specifier).then(
    (module: { default: S3rverClass }) => module.default,
    () => null,
  );
  return loading;
}

export interface S3rverOptions {
  /** Buckets created before the server starts. Default ['fileconv-test']. */
  buckets?: string[];
  /** Refuse presigned requests whose signature does not match, as S3 does. Default true. */
  verifyPresignedSignatures?: boolean;
  /** Implement AbortMultipartUpload, which s3rver lacks, and NoSuchUpload for unknown upload ids. Default true. */
  abortMultipartUploads?: boolean;
  /** Keep every request in `requests`. Default true; a long soak turns it off. */
  recordRequests?: boolean;
}

export interface RecordedRequest {
  method: string;
  /** Raw path, still percent-encoded. */
  path: string;
  /** Raw query string, without '?'. */
  query: string;
}

export interface S3rverHandle {
  endpoint: string;
  /** The first bucket. */
  bucket: string;
  /** Every request the server received, in order. */
  requests: RecordedRequest[];
  /** Keys of multipart uploads started and neither completed nor aborted, in `bucket`. */
  pendingMultipartUploads(bucket?: string): Promise<string[]>;
  /**
   * Stops the server as an outage would: open connections are dropped, the port refuses
   * connections; the objects stay. resume() brings it back on the same port and directory.
   */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** RFC 3986 encoding, as SigV4 canonicalisation wants it. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/**
 * Why a presigned (query-string) SigV4 request fails verification, or null when it verifies.
 * Follows AWS's "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)".
 */
export function presignedSignatureProblem(
  method: string,
  rawUrl: string,
  headers: IncomingMessage['headers'],
  secrets: Record<string, string>,
): string | null {
  const [rawPath = '/', rawQuery = ''] = rawUrl.split('?', 2);
  const params: [string, string][] = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      const name = at === -1 ? pair : pair.slice(0, at);
      const value = at === -1 ? '' : pair.slice(at + 1);
      return [decodeURIComponent(name), decodeURIComponent(value)];
    });
  const param = (name: string) => params.find(([key]) => key === name)?.[1];
  const signature = param('X-Amz-Signature');
  const credential = param('X-Amz-Credential');
  const amzDate = param('X-Amz-Date');
  const signedHeaders = param('X-Amz-SignedHeaders');
  if (!signature || !credential || !amzDate || !signedHeaders) return 'incomplete query authentication';
  const [accessKeyId = '', ...scopeParts] = credential.split('/');
  const secret = secrets[accessKeyId];
  if (secret === undefined) return `unknown access key ${accessKeyId}`;
  const [date = '', region = '', service = ''] = scopeParts;

  const canonicalQuery = params
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => {
      const value = headers[name];
      const text = Array.isArray(value) ? value.join(',') : (value ?? '');
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const payloadHash = param('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const canonicalRequest = [
    method,
    rawPath,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scopeParts.join('/'),
    createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
  ].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  const expected = Buffer.from(hmac(signingKey, stringToSign).toString('hex'));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? null : 'signature mismatch';
}

function xmlError(ctx: KoaContext, status: number, code: string, message: string): void {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

/** Starts s3rver on a free port of 127.0.0.1; throws when s3rver cannot be imported. */
export async function startS3rver(options: S3rverOptions = {}): Promise<S3rverHandle> {
  const loaded = await loadS3rver();
  if (!loaded) throw new Error(`s3rver cannot be imported: ${S3RVER_INSTALL}`);
  const S3rver: S3rverClass = loaded;
  const buckets = options.buckets ?? ['fileconv-test'];
  const verify = options.verifyPresignedSignatures ?? true;
  const abort = options.abortMultipartUploads ?? true;
  const record = options.recordRequests ?? true;
  const directory = await mkdtemp(path.join(tmpdir(), 'fileconv-s3rver-'));
  const requests: RecordedRequest[] = [];
  // Where s3rver keeps a bucket's multipart uploads: <dir>/<bucket>/._S3rver_uploads/<uploadId>/.
  const uploadsDir = (bucket: string) => path.join(directory, bucket, '._S3rver_uploads');

  const front: KoaMiddleware = async (ctx, next) => {
    const url = ctx.req.url ?? '/';
    const [rawPath = '/', query = ''] = url.split('?', 2);
    if (record) requests.push({ method: ctx.method, path: rawPath, query });
    const search = new URLSearchParams(query);
    if (verify && search.has('X-Amz-Signature')) {
      const problem = presignedSignatureProblem(ctx.method, url, ctx.req.headers, {
        [S3RVER_CREDENTIALS.accessKeyId]: S3RVER_CREDENTIALS.secretAccessKey,
      });
      if (problem) {
        ctx.req.resume(); // drain the refused body, as S3 does
        return xmlError(
          ctx,
          403,
          'SignatureDoesNotMatch',
          `The request signature does not match (${problem}).`,
        );
      }
    }
    const uploadId = search.get('uploadId');
    if (abort && uploadId !== null) {
      const bucket = decodeURIComponent(rawPath.split('/')[1] ?? '');
      const known =
        /^[0-9a-f]+$/.test(uploadId) &&
        buckets.includes(bucket) &&
        (await stat(path.join(uploadsDir(bucket), uploadId)).then(
          () => true,
          () => false,
        ));
      if (ctx.method === 'DELETE') {
        if (known) await rm(path.join(uploadsDir(bucket), uploadId), { recursive: true, force: true });
        // S3 answers 204 for an upload it still knows, NoSuchUpload for one completed or aborted.
        if (!known) return xmlError(ctx, 404, 'NoSuchUpload', 'The specified upload does not exist.');
        ctx.status = 204;
        ctx.body = null;
        return;
      }
      if (!known) {
        ctx.req.resume();
        return xmlError(ctx, 404, 'NoSuchUpload', 'The specified upload does not exist.');
      }
      if (ctx.method === 'GET') {
        // ListParts, which s3rver lacks: the part numbers stored (all that the tests read).
        const names = await readdir(path.join(uploadsDir(bucket), uploadId));
        const numbers = names.filter((name) => /^\d+$/.test(name)).map(Number);
        const parts = numbers
          .sort((a, b) => a - b)
          .map((number) => `<Part><PartNumber>${number}</PartNumber></Part>`)
          .join('');
        ctx.status = 200;
        ctx.type = 'application/xml';
        ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult><Bucket>${bucket}</Bucket><UploadId>${uploadId}</UploadId><IsTruncated>false</IsTruncated>${parts}</ListPartsResult>`;
        return;
      }
    }
    await next();
  };

  /** One s3rver on `port` (0: a free one) over the same directory, the front middleware first. */
  async function launch(port: number): Promise<{ instance: S3rverInstance; port: number }> {
    const instance = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: buckets.map((name) => ({ name })),
    });
    // Koa composes its middleware when the server starts, so this one runs before s3rver's own.
    instance.middleware.unshift(front);
    const address = await instance.run();
    return { instance, port: address.port };
  }

  let running: S3rverInstance | undefined;
  let port: number;
  try {
    ({ instance: running, port } = await launch(0));
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }

  /** Drops every open connection (as a crash would) and stops listening. */
  async function halt(): Promise<void> {
    const instance = running;
    running = undefined;
    if (!instance) return;
    const closed = instance.close(); // stops listening first, so nothing new gets in meanwhile
    instance.httpServer?.closeAllConnections();
    await closed;
  }

  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: buckets[0]!,
    requests,
    async pendingMultipartUploads(bucket = buckets[0]!) {
      const ids = await readdir(uploadsDir(bucket)).catch(() => [] as string[]);
      return Promise.all(ids.map((id) => readFile(path.join(uploadsDir(bucket), id, 'key'), 'utf8')));
    },
    pause: halt,
    async resume() {
      if (running) return;
      ({ instance: running } = await launch(port));
    },
    async stop() {
      try {
        await halt();
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    },
  };
}
