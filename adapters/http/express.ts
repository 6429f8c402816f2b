/**
 * The HTTP API of the service specification as an Express 5 Router, mountable under any prefix
 * in an existing app: Flow A (upload grant, PUT, job, polling), Flow B (multipart upload,
 * convert, download), plus GET /api/formats, GET /api/health and DELETE /api/jobs/{jobId}.
 * Every route is a thin layer over the engine; errors answer `{ error: { code, message } }`.
 */
import { pipeline } from 'node:stream/promises';
import express, { type Response, Router } from 'express';
import { z } from 'zod';
import type { Engine } from '../../src/engine.js';
import { FileconvError } from '../../src/errors.js';
import { type QuotaTicket, refundQuota } from '../../src/policy/enforce.js';
import { assertBatchAllowed, assertFileSize, DEFAULT_PLANS, type PlanTable } from '../../src/policy/plans.js';
import type { CounterStore, KeyStore } from '../../src/ports.js';
import { signingKey } from '../../src/signing.js';
import { fileIdFromKey } from '../../src/upload-operations.js';
import {
  type AccessSettings,
  type Authenticator,
  accessMiddleware,
  chargeQuota,
  clientOf,
  compileTrust,
} from './access.js';
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
import {
  batchRequest,
  type CreateJobBody,
  convertRequest,
  createJobRequest,
  uploadUrlRequest,
} from './request-schemas.js';
import { usageView } from './usage-view.js';
import { jobView, uploadedFileView } from './views.js';

export interface HttpRouterOptions {
  /**
   * Secret (>= 32 bytes) that signs local upload and download URLs. Required unless the storage
   * presigns both (S3). Keep it stable across restarts and shared by every API node.
   */
  signingSecret?: string | Uint8Array;
  /** The router's public base URL (e.g. https://api.example.com/convert) for links behind a proxy. Default: from each request. */
  publicUrl?: string;
  /** The plans: limits, priorities, batch. Default DEFAULT_PLANS (the specification's values). */
  plans?: PlanTable;
  /** Where API keys live; without it, requests with an Authorization header are refused (401). */
  keys?: KeyStore;
  /** Counters for rate limits and quotas; without it nothing is rate-limited or counted. */
  counters?: CounterStore;
  /** A host's own sign-in, tried before API keys: request -> { accountId, plan } or null. */
  authenticate?: Authenticator;
  /**
   * Which proxies to believe about the client IP (X-Forwarded-For): false (default: the socket
   * address, so a spoofed header changes nothing), true, a hop count, or addresses/subnets.
   */
  trustProxy?: boolean | number | string | readonly string[];
  /** Lifetime of download URLs, seconds. Default 3600. */
  downloadUrlExpiresIn?: number;
  /** How long POST /api/convert waits for its conversion, ms. Default 600000. */
  convertTimeoutMs?: number;
  /** Clock for limit windows, epoch ms (tests). Default Date.now. */
  now?: () => number;
  /** Called with every unexpected (5xx) error and its cause, for the host's log. Default: console.error. */
  onError?: (error: unknown) => void;
}

/** Upload URLs live exactly as long as the specification says: `expiresIn` is the constant 600. */
export const UPLOAD_URL_EXPIRES_IN = 600;

const jobIdParam = z.string().min(1).max(100);

export function createHttpRouter(engine: Engine, options: HttpRouterOptions = {}): Router {
  const now = options.now ?? Date.now;
  const access: AccessSettings = {
    plans: options.plans ?? DEFAULT_PLANS,
    keys: options.keys,
    counters: options.counters,
    authenticate: options.authenticate,
    trust: compileTrust(options.trustProxy),
    now,
  };
  const links: LinkSettings = {
    storage: engine.storage,
    key: options.signingSecret === undefined ? undefined : signingKey(options.signingSecret),
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    downloadExpiresIn: options.downloadUrlExpiresIn ?? 3600,
    nowSeconds: () => Math.floor(now() / 1000),
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
  router.use(accessMiddleware(access));

  // ---- Flow A ---------------------------------------------------------------------------

  router.post('/api/files/get-upload-url', json, async (req, res) => {
    const client = clientOf(res);
    const body = parse(uploadUrlRequest, req.body);
    assertFileSize(client.plan, body.fileSize);
    await chargeQuota(access, res, 'files');
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
    const [job] = await createCharged(res, [parse(createJobRequest, req.body)]);
    res.json({ jobId: job!.id });
  });

  router.post('/api/jobs/batch', json, async (req, res) => {
    const { plan } = clientOf(res);
    const body = parse(batchRequest, req.body);
    assertBatchAllowed(plan, body.jobs.length);
    const jobs = await createCharged(res, body.jobs);
    res.json({ jobIds: jobs.map((job) => job.id) });
  });

  /** Creates Flow A jobs all-or-nothing, charged to the daily quota; a refusal charges nothing. */
  async function createCharged(res: Response, requests: readonly CreateJobBody[]) {
    const client = clientOf(res);
    const inputs = requests.map((body, index) => {
      const fileId = fileIdFromKey(body.fileKey);
      if (!fileId) {
        const where = requests.length > 1 ? `jobs[${index}]: ` : '';
        throw new FileconvError('NOT_FOUND', `${where}No such file.`, { details: { fileKey: body.fileKey } });
      }
      return {
        owner: client.owner,
        fileId,
        sourceFormat: body.sourceFormat,
        targetFormat: body.targetFormat,
        fileSize: body.fileSize,
        options: body.options,
        priority: client.plan.priority,
      };
    });
    return withCharge(res, inputs.length, (charge) =>
      engine.createJobs(inputs.map((input) => ({ ...input, charge }))),
    );
  }

  /** Charges `amount` conversions, runs `create`, and gives the charge back if `create` fails. */
  async function withCharge<T>(
    res: Response,
    amount: number,
    create: (charge: QuotaTicket | null) => Promise<T>,
  ): Promise<T> {
    const ticket = await chargeQuota(access, res, 'conversions', amount);
    try {
      // One ticket covers the batch; each job carries a one-unit share, so a failed job refunds one.
      return await create(ticket && { ...ticket, amount: 1 });
    } catch (error) {
      if (access.counters && ticket) await refundQuota(access.counters, ticket, now());
      throw error;
    }
  }

  router.get('/api/jobs/:jobId', async (req, res) => {
    const client = clientOf(res);
    const job = await engine.getJob(parse(jobIdParam, req.params.jobId, 'job id'), client.owner);
    res.set('Cache-Control', 'no-store');
    res.json(jobView(job, await downloadUrlFor(links, req, job)));
  });

  router.delete('/api/jobs/:jobId', async (req, res) => {
    const client = clientOf(res);
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
    const client = clientOf(res);
    const maxBytes = client.plan.maxFileBytes;
    const declared = Number(req.get('content-length'));
    // Multipart framing is small: a body far over the limit cannot hold a file under it, so it is refused unread.
    if (Number.isFinite(declared) && declared > maxBytes + 64 * 1024) assertFileSize(client.plan, declared);
    const ticket = await chargeQuota(access, res, 'files');
    const file = await receiveSingleFile(req, {
      maxBytes,
      onFile: (incoming) =>
        engine.uploadFile({
          owner: client.owner,
          fileName: incoming.fileName,
          body: incoming.stream,
          maxBytes,
          contentType: incoming.mimeType,
        }),
      discard: (stored) => engine.deleteFile(stored.id),
    }).catch(async (error: unknown) => {
      // Nothing was kept: a refused upload does not use up a file of the hour.
      if (access.counters && ticket) await refundQuota(access.counters, ticket, now());
      throw error;
    });
    res.json(uploadedFileView(file));
  });

  router.post('/api/convert', json, async (req, res) => {
    const client = clientOf(res);
    const body = parse(convertRequest, req.body);
    const file = await engine.getFile(body.fileId, client.owner);
    if (body.fileName !== file.fileName) {
      throw new FileconvError('INVALID_REQUEST', 'fileName must be the name the upload returned.', {
        details: { expected: file.fileName },
      });
    }
    const job = await withCharge(res, 1, (charge) =>
      engine.createJob({
        owner: client.owner,
        fileId: file.id,
        targetFormat: body.targetFormat,
        options: body.options,
        priority: client.plan.priority,
        charge,
      }),
    );
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
    const client = clientOf(res);
    const id = parse(jobIdParam, req.query.id, 'download id');
    await engine.getJob(id, client.owner);
    await sendResult(res, engine, id);
  });

  // ---- Additive endpoints ---------------------------------------------------------------

  router.get('/api/usage', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(await usageView(access, clientOf(res)));
  });

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
  try {
    await pipeline(result.stream, res);
  } catch (error) {
    // The client went away mid-download: nothing failed on our side, and nobody is left to answer.
    if (
      res.destroyed &&
      !res.writableFinished &&
      (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE'
    )
      return;
    throw error;
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what?: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalidRequest(parsed.error, what);
  return parsed.data;
}

/** `image/png; charset=x` -> `image/png`, lowercase; '' when absent. */
function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
}
