/**
 * Resumable uploads over the tus 1.0 protocol (https://tus.io/protocols/resumable-upload): core,
 * creation, termination, expiration and checksum, at /api/tus. The upload URL's last segment is
 * the file id and `uploads/<fileId>` its fileKey, so a finished upload is used by Flow A
 * (`fileKey`) and Flow B (`fileId`) like any uploaded file. Errors are the service's JSON error
 * body (tus clients read only the status). Mounted only when the storage has `resumable`.
 */
import { FileconvError } from '../core/errors.js';
import { assertFileSize, uploadRetentionMsOf } from '../core/policy/plans.js';
import type { ChecksumAlgorithm } from '../engine/resumable-operations.js';
import type { Call } from './access.js';
import { emptyAnswer } from './exchange.js';
import { mediaType, type RouteContext } from './route-context.js';
import type { Route } from './routes.js';

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = 'creation,creation-with-upload,termination,expiration,checksum';
const CHECKSUM_ALGORITHMS: readonly ChecksumAlgorithm[] = ['sha1', 'sha256', 'md5'];
const PATCH_TYPE = 'application/offset+octet-stream';
const DIGITS = /^\d{1,16}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What every tus answer carries, refusals included (Route.headers). */
const TUS_HEADERS = { 'tus-resumable': TUS_VERSION } as const;

/** A tus request must name the protocol version it speaks; OPTIONS alone need not. */
function tusCall(call: Call): void {
  if (call.exchange.header('tus-resumable') !== TUS_VERSION) {
    call.headers['tus-version'] = TUS_VERSION;
    throw new FileconvError(
      'TUS_VERSION_UNSUPPORTED',
      `This server speaks tus ${TUS_VERSION}: send Tus-Resumable: ${TUS_VERSION}.`,
      {
        details: { supported: [TUS_VERSION] },
      },
    );
  }
}

/** A header holding a whole number of bytes, or INVALID_REQUEST naming it. */
function byteCount(call: Call, name: string): number | undefined {
  const value = call.exchange.header(name);
  if (value === undefined) return undefined;
  if (!DIGITS.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
    throw new FileconvError('INVALID_REQUEST', `${name} must be a whole number of bytes.`, {
      details: { header: name },
    });
  }
  return Number(value);
}

/** Upload-Metadata: comma-separated `key base64value` pairs (the value may be absent). */
function parseUploadMetadata(value: string | undefined): Map<string, string> {
  const pairs = new Map<string, string>();
  if (value === undefined || value.trim() === '') return pairs;
  for (const pair of value.split(',')) {
    const [key, encoded = '', ...rest] = pair.trim().split(' ');
    if (!key || rest.length > 0 || !BASE64.test(encoded) || encoded.length % 4 === 1) {
      throw new FileconvError(
        'INVALID_REQUEST',
        'Upload-Metadata must be comma-separated "key base64value" pairs.',
        {
          details: { header: 'Upload-Metadata' },
        },
      );
    }
    pairs.set(key, Buffer.from(encoded, 'base64').toString('utf8'));
  }
  return pairs;
}

/** Upload-Checksum: `<algorithm> <base64 digest>`; an algorithm not offered is a 400. */
function parseChecksum(
  value: string | undefined,
): { algorithm: ChecksumAlgorithm; digest: Buffer } | undefined {
  if (value === undefined) return undefined;
  const [algorithm = '', encoded = ''] = value.trim().split(/\s+/);
  if (!CHECKSUM_ALGORITHMS.includes(algorithm as ChecksumAlgorithm)) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `Upload-Checksum: the algorithm must be one of ${CHECKSUM_ALGORITHMS.join(', ')}.`,
      {
        details: { header: 'Upload-Checksum', algorithm },
      },
    );
  }
  if (encoded === '' || !BASE64.test(encoded)) {
    throw new FileconvError('INVALID_REQUEST', 'Upload-Checksum: the digest must be base64.', {
      details: { header: 'Upload-Checksum' },
    });
  }
  return { algorithm: algorithm as ChecksumAlgorithm, digest: Buffer.from(encoded, 'base64') };
}

/** A plain `type/subtype` MIME type; anything else a client sends as filetype is not passed on to storage. */
const MIME_TYPE = /^[\w.+-]{1,127}\/[\w.+-]{1,127}$/;

function contentTypeOf(metadata: Map<string, string>): string {
  const given = (metadata.get('filetype') || metadata.get('type') || '').trim().toLowerCase();
  return MIME_TYPE.test(given) ? given : 'application/octet-stream';
}

function expiresHeader(expiresAt: string): string {
  return new Date(expiresAt).toUTCString();
}

export function tusRoutes(ctx: RouteContext): Route[] {
  const { engine } = ctx;

  /** Streams the request's body into the upload at `offset`; resolves with the record and the offset reached. */
  async function append(call: Call, fileId: string, offset: number) {
    const { exchange } = call;
    const checksum = parseChecksum(exchange.header('upload-checksum'));
    const contentLength = byteCount(call, 'content-length');
    const file = await engine.appendResumable({
      fileId,
      owner: call.client.owner,
      offset,
      body: exchange.body(),
      ...(contentLength === undefined ? {} : { contentLength }),
      ...(checksum ? { checksum } : {}),
    });
    const reached = file.resumable ? file.resumable.offset : file.size;
    call.uploadedBytes = reached - offset;
    return { file, reached };
  }

  const routes: Route[] = [
    {
      method: 'OPTIONS',
      path: '/api/tus',
      async handle(call) {
        return emptyAnswer(204, {
          'tus-version': TUS_VERSION,
          'tus-extension': TUS_EXTENSIONS,
          'tus-max-size': String(call.client.plan.maxFileBytes),
          'tus-checksum-algorithm': CHECKSUM_ALGORITHMS.join(','),
        });
      },
    },
    {
      method: 'POST',
      path: '/api/tus',
      idempotent: true,
      async handle(call) {
        tusCall(call);
        const { client, exchange } = call;
        if (exchange.header('upload-defer-length') !== undefined) {
          throw new FileconvError(
            'INVALID_REQUEST',
            'Upload-Defer-Length is not supported: send Upload-Length.',
            {
              details: { header: 'Upload-Defer-Length' },
            },
          );
        }
        const size = byteCount(call, 'upload-length');
        if (size === undefined) {
          throw new FileconvError('INVALID_REQUEST', 'Upload-Length is required.', {
            details: { header: 'Upload-Length' },
          });
        }
        const metadata = parseUploadMetadata(exchange.header('upload-metadata'));
        assertFileSize(client.plan, size);
        await call.meter.charge('files');
        await call.meter.charge('uploadBytes', size);
        const file = await engine.createResumableUpload({
          owner: client.owner,
          fileName: metadata.get('filename') ?? metadata.get('name') ?? 'upload',
          size,
          contentType: contentTypeOf(metadata),
          retentionMs: uploadRetentionMsOf(client.plan),
        });
        const headers = {
          location: `${call.baseUrl}/api/tus/${file.id}`,
          'upload-expires': expiresHeader(file.expiresAt),
        };
        // creation-with-upload: the first bytes ride along with the creation.
        if (mediaType(exchange.header('content-type')) !== PATCH_TYPE) return emptyAnswer(201, headers);
        let reached: number;
        try {
          ({ reached } = await append(call, file.id, 0));
        } catch (error) {
          // The client never learns this upload's URL from a refusal: drop it, it retries whole.
          await engine.terminateResumable(file.id, client.owner).catch(() => {});
          throw error;
        }
        return emptyAnswer(201, { ...headers, 'upload-offset': String(reached) });
      },
    },
    {
      method: 'HEAD',
      path: '/api/tus/:fileId',
      async handle(call, params) {
        tusCall(call);
        const file = await engine.getResumableUpload(params.fileId!, call.client.owner);
        const offset = file.resumable ? file.resumable.offset : file.size;
        return emptyAnswer(200, {
          'upload-offset': String(offset),
          'upload-length': String(file.size),
          'upload-expires': expiresHeader(file.expiresAt),
          'cache-control': 'no-store',
        });
      },
    },
    {
      method: 'PATCH',
      path: '/api/tus/:fileId',
      async handle(call, params) {
        tusCall(call);
        const { exchange } = call;
        if (mediaType(exchange.header('content-type')) !== PATCH_TYPE) {
          throw new FileconvError(
            'UNSUPPORTED_FORMAT',
            `A tus PATCH must be sent as Content-Type ${PATCH_TYPE}.`,
            { details: { expected: PATCH_TYPE, received: exchange.header('content-type') ?? null } },
          );
        }
        const offset = byteCount(call, 'upload-offset');
        if (offset === undefined) {
          throw new FileconvError('INVALID_REQUEST', 'Upload-Offset is required.', {
            details: { header: 'Upload-Offset' },
          });
        }
        const { file, reached } = await append(call, params.fileId!, offset);
        return emptyAnswer(204, {
          'upload-offset': String(reached),
          'upload-expires': expiresHeader(file.expiresAt),
        });
      },
    },
    {
      method: 'DELETE',
      path: '/api/tus/:fileId',
      async handle(call, params) {
        tusCall(call);
        await engine.terminateResumable(params.fileId!, call.client.owner);
        return emptyAnswer(204);
      },
    },
  ];
  return routes.map((route) => ({ ...route, headers: TUS_HEADERS }));
}
