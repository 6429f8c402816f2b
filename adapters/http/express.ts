/**
 * The HTTP API of the service specification as an Express 5 Router, mountable under any prefix
 * in an existing app: Flow A (upload grant, PUT, job, polling), Flow B (multipart upload,
 * convert, download), plus GET /api/formats, GET /api/health and DELETE /api/jobs/{jobId}.
 * Every route is a thin layer over the engine; errors answer `{ error: { code, message } }`.
 */
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import type { Engine } from '../../src/engine.js';
import { FileconvError } from '../../src/errors.js';
import { signingKey } from '../../src/signing.js';
import { fileIdFromKey } from '../../src/upload-operations.js';
import { describeFormats } from './formats-view.js';
import { errorMiddleware, invalidRequest } from './http-errors.js';
import {
  downloadUrlFor,
  type LinkSettings,
  uploadUrlFor,
  verifyDownloadUrl,
  verifyUploadUrl,
} from './links.js';
import { receiveSingleFile } from './multipart.js';
import { convertRequest, createJobRequest, uploadUrlRequest } from './request-schemas.js';
import { jobView, uploadedFileView } from './views.js';

/** Who is calling, as far as limits are concerned. */
export interface ClientIdentity {
  /** Owner of the files and jobs the request creates or reads: an account id, or `ip:<address>`. */
  owner: string;
  /** Largest file this client may upload, bytes. */
  maxFileBytes: number;
  /** Queue priority of this client's jobs; higher runs first. */
  priority: number;
}

export interface HttpRouterOptions {
  /**
   * Secret (>= 32 bytes) that signs local upload and download URLs. Required unless the storage
   * presigns both (S3). Keep it stable across restarts and shared by every API node.
   */
  signingSecret?: string | Uint8Array;
  /** The router's public base URL (e.g. https://api.example.com/convert) for links behind a proxy. Default: from each request. */
  publicUrl?: string;
  /** Identifies the caller. Default: anonymous per client IP, with `maxFileBytes` and priority 0. */
  identify?: (req: Request) => ClientIdentity | Promise<ClientIdentity>;
  /** Upload size limit for the default identify, bytes. Default 26214400 (25 MB, the Free plan). */
  maxFileBytes?: number;
  /** Lifetime of download URLs, seconds. Default 3600. */
  downloadUrlExpiresIn?: number;
  /** How long POST /api/convert waits for its conversion, ms. Default 600000. */
  convertTimeoutMs?: number;
  /** Called with every unexpected (5xx) error and its cause, for the host's log. Default: console.error. */
  onError?: (error: unknown) => void;
}

/** Upload URLs live exactly as long as the specification says: `expiresIn` is the constant 600. */
export const UPLOAD_URL_EXPIRES_IN = 600;

const jobIdParam = z.string().min(1).max(100);

export function createHttpRouter(engine: Engine, options: HttpRouterOptions = {}): Router {
  const maxFileBytes = options.maxFileBytes ?? 25 * 1024 * 1024;
  const identify =
    options.identify ??
    ((req: Request): ClientIdentity => ({ owner: `ip:${req.ip ?? 'unknown'}`, maxFileBytes, priority: 0 }));
  const links: LinkSettings = {
    storage: engine.storage,
    key: options.signingSecret === undefined ? undefined : signingKey(options.signingSecret),
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    downloadExpiresIn: options.downloadUrlExpiresIn ?? 3600,
    nowSeconds: () => Math.floor(Date.now() / 1000),
  };
  if (!links.key && !(engine.storage?.presignPut && engine.storage.presignGet)) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      'createHttpRouter: signingSecret is required unless storage presigns URLs.',
    );
  }
  const convertTimeoutMs = options.convertTimeoutMs ?? 600_000;
  const json = express.json({ limit: '64kb' });
  const router = Router();

  // ---- Flow A ---------------------------------------------------------------------------

  router.post('/api/files/get-upload-url', json, async (req, res) => {
    const client = await identify(req);
    const body = parse(uploadUrlRequest, req.body);
    checkSize(body.fileSize, client.maxFileBytes);
    const file = await engine.createUploadGrant({
      owner: client.owner,
      fileName: body.fileName,
      size: body.fileSize,
      contentType: body.contentType,
      expiresInSeconds: UPLOAD_URL_EXPIRES_IN,
    });
    const uploadUrl = await uploadUrlFor(links, req, file, UPLOAD_URL_EXPIRES_IN);
    res.json({ uploadUrl, fileKey: file.key, fileId: file.id, expiresIn: UPLOAD_URL_EXPIRES_IN });
  });

  // The local stand-in for a presigned storage PUT: the signature is the credential.
  router.put('/api/files/:fileId/content', async (req, res) => {
    const file = await engine.getFile(req.params.fileId).catch(() => {
      throw new FileconvError('SIGNATURE_INVALID', 'The URL signature is not valid for this request.');
    });
    verifyUploadUrl(links, file, req.query);
    const sent = mediaType(req.get('content-type'));
    if (sent !== mediaType(file.contentType)) {
      throw new FileconvError(
        'SIGNATURE_INVALID',
        `The URL was signed for Content-Type ${file.contentType}.`,
        {
          details: { expected: file.contentType, received: req.get('content-type') ?? null },
        },
      );
    }
    const length = req.get('content-length');
    await engine.receiveUpload({
      fileId: file.id,
      body: req,
      contentLength: length === undefined ? undefined : Number(length),
    });
    res.status(200).end();
  });

  router.post('/api/jobs/create', json, async (req, res) => {
    const client = await identify(req);
    const body = parse(createJobRequest, req.body);
    const fileId = fileIdFromKey(body.fileKey);
    if (!fileId)
      throw new FileconvError('NOT_FOUND', 'No such file.', { details: { fileKey: body.fileKey } });
    const job = await engine.createJob({
      owner: client.owner,
      fileId,
      sourceFormat: body.sourceFormat,
      targetFormat: body.targetFormat,
      fileSize: body.fileSize,
      options: body.options,
      priority: client.priority,
    });
    res.json({ jobId: job.id });
  });

  router.get('/api/jobs/:jobId', async (req, res) => {
    const client = await identify(req);
    const job = await engine.getJob(parse(jobIdParam, req.params.jobId, 'job id'), client.owner);
    res.set('Cache-Control', 'no-store');
    res.json(jobView(job, await downloadUrlFor(links, req, job)));
  });

  router.delete('/api/jobs/:jobId', async (req, res) => {
    const client = await identify(req);
    const job = await engine.discardJob(parse(jobIdParam, req.params.jobId, 'job id'), client.owner);
    res.json(jobView(job, null));
  });

  // The local stand-in for a presigned storage GET.
  router.get('/api/jobs/:jobId/result', async (req, res) => {
    verifyDownloadUrl(links, req.params.jobId, req.query);
    await sendResult(res, engine, req.params.jobId);
  });

  // ---- Flow B ---------------------------------------------------------------------------

  router.post('/api/upload', async (req, res) => {
    const client = await identify(req);
    const declared = Number(req.get('content-length'));
    // A body smaller than the limit cannot hold a file over it; a larger one is refused unread.
    if (Number.isFinite(declared) && declared > client.maxFileBytes + 64 * 1024)
      checkSize(declared, client.maxFileBytes);
    const file = await receiveSingleFile(req, {
      maxBytes: client.maxFileBytes,
      onFile: (incoming) =>
        engine.uploadFile({
          owner: client.owner,
          fileName: incoming.fileName,
          body: incoming.stream,
          maxBytes: client.maxFileBytes,
          contentType: incoming.mimeType,
        }),
      discard: (stored) => engine.deleteFile(stored.id),
    });
    res.json(uploadedFileView(file));
  });

  router.post('/api/convert', json, async (req, res) => {
    const client = await identify(req);
    const body = parse(convertRequest, req.body);
    const file = await engine.getFile(body.fileId, client.owner);
    if (body.fileName !== file.fileName) {
      throw new FileconvError('INVALID_REQUEST', 'fileName must be the name the upload returned.', {
        details: { expected: file.fileName },
      });
    }
    const job = await engine.createJob({
      owner: client.owner,
      fileId: file.id,
      targetFormat: body.targetFormat,
      options: body.options,
      priority: client.priority,
    });
    // The conversion goes on if the client leaves; only the waiting stops.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const done = await engine.waitForJob(job.id, { timeoutMs: convertTimeoutMs, signal: gone.signal });
    if (done.status !== 'completed') {
      const error = done.error ?? {
        code: 'CONVERSION_FAILED' as const,
        message: 'The conversion did not complete.',
      };
      throw new FileconvError(error.code, error.message, { details: { jobId: done.id } });
    }
    res.json({ downloadId: done.id, outputName: done.outputName });
  });

  router.get('/api/download', async (req, res) => {
    const client = await identify(req);
    const id = parse(jobIdParam, req.query.id, 'download id');
    await engine.getJob(id, client.owner);
    await sendResult(res, engine, id);
  });

  // ---- Additive endpoints ---------------------------------------------------------------

  let formatsBody: Promise<unknown> | undefined;
  router.get('/api/formats', async (_req, res) => {
    formatsBody ??= describeFormats(engine);
    res.set('Cache-Control', 'public, max-age=300');
    res.json(await formatsBody);
  });

  router.get('/api/health', async (_req, res) => {
    const converters = await engine.converters();
    res.set('Cache-Control', 'no-store');
    res.json({
      status: 'ok',
      engines: converters.map(({ name, ok, version, reason }) => ({
        name,
        ok,
        version: version ?? null,
        reason: reason ?? null,
      })),
    });
  });

  router.use(errorMiddleware(options.onError ?? ((error) => console.error(error))));
  return router;
}

/** Streams a completed job's result with its type, length and a download name safe for any characters. */
async function sendResult(res: Response, engine: Engine, jobId: string): Promise<void> {
  const result = await engine.openResult(jobId);
  res.status(200);
  res.set('Content-Type', result.contentType);
  res.set('Content-Length', String(result.size));
  res.attachment(result.fileName);
  res.set('Cache-Control', 'private, no-store');
  await pipeline(result.stream, res);
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what?: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalidRequest(parsed.error, what);
  return parsed.data;
}

function checkSize(size: number, maxBytes: number): void {
  if (size > maxBytes) {
    throw new FileconvError('FILE_TOO_LARGE', `The file is larger than the ${maxBytes} bytes allowed.`, {
      details: { maxBytes, size },
    });
  }
}

/** `image/png; charset=x` -> `image/png`, lowercase; '' when absent. */
function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
}
