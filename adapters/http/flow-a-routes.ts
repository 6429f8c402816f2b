/**
 * Flow A of the specification: upload grant, the signed PUT (the local stand-in for a presigned
 * storage URL), job creation (one or a batch), polling, cancel, and the signed result GET.
 */
import type { Response, Router } from 'express';
import { FileconvError } from '../../src/errors.js';
import { assertBatchAllowed, assertFileSize } from '../../src/policy/plans.js';
import { fileIdFromKey } from '../../src/upload-operations.js';
import { chargeQuota, clientOf } from './access.js';
import { downloadUrlFor, uploadUrlFor, verifyDownloadUrl, verifyUploadUrl } from './links.js';
import { batchRequest, type CreateJobBody, createJobRequest, uploadUrlRequest } from './request-schemas.js';
import {
  jobIdParam,
  mediaType,
  parse,
  type RouteContext,
  sendResult,
  UPLOAD_URL_EXPIRES_IN,
  withCharge,
} from './route-context.js';
import { jobView } from './views.js';

export function addFlowARoutes(router: Router, ctx: RouteContext): void {
  router.post('/api/files/get-upload-url', ctx.json, async (req, res) => {
    const client = clientOf(res);
    const body = parse(uploadUrlRequest, req.body);
    assertFileSize(client.plan, body.fileSize);
    await chargeQuota(ctx.access, res, 'files');
    const file = await ctx.engine.createUploadGrant({
      owner: client.owner,
      fileName: body.fileName,
      size: body.fileSize,
      contentType: body.contentType,
      expiresInSeconds: UPLOAD_URL_EXPIRES_IN,
    });
    const uploadUrl = await uploadUrlFor(ctx.links, req, file, UPLOAD_URL_EXPIRES_IN);
    res.json({ uploadUrl, fileKey: file.key, fileId: file.id, expiresIn: UPLOAD_URL_EXPIRES_IN });
  });

  // The local stand-in for a presigned storage PUT: the signature is the credential.
  router.put('/api/files/:fileId/content', async (req, res) => {
    const file = await ctx.engine.getFile(req.params.fileId).catch(() => {
      throw new FileconvError('SIGNATURE_INVALID', 'The URL signature is not valid for this request.');
    });
    verifyUploadUrl(ctx.links, file, req.query);
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
    await ctx.engine.receiveUpload({
      fileId: file.id,
      body: req,
      contentLength: length === undefined ? undefined : Number(length),
    });
    res.status(200).end();
  });

  router.post('/api/jobs/create', ctx.json, async (req, res) => {
    const [job] = await createCharged(res, [parse(createJobRequest, req.body)]);
    res.json({ jobId: job!.id });
  });

  router.post('/api/jobs/batch', ctx.json, async (req, res) => {
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
        ...(body.webhookUrl === undefined ? {} : { webhookUrl: body.webhookUrl }),
      };
    });
    return withCharge(ctx, res, inputs.length, (charge) =>
      ctx.engine.createJobs(inputs.map((input) => ({ ...input, charge }))),
    );
  }

  router.get('/api/jobs/:jobId', async (req, res) => {
    const client = clientOf(res);
    const job = await ctx.engine.getJob(parse(jobIdParam, req.params.jobId, 'job id'), client.owner);
    res.set('Cache-Control', 'no-store');
    res.json(jobView(job, await downloadUrlFor(ctx.links, req, job)));
  });

  router.delete('/api/jobs/:jobId', async (req, res) => {
    const client = clientOf(res);
    const job = await ctx.engine.discardJob(parse(jobIdParam, req.params.jobId, 'job id'), client.owner);
    res.json(jobView(job, null));
  });

  // The local stand-in for a presigned storage GET.
  router.get('/api/jobs/:jobId/result', async (req, res) => {
    verifyDownloadUrl(ctx.links, req.params.jobId, req.query);
    await sendResult(res, ctx.engine, req.params.jobId);
  });
}
