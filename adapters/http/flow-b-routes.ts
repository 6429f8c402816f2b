/**
 * Flow B of the specification: a streamed multipart upload, a conversion that answers once the
 * result is ready, and the download by id.
 */
import type { Router } from 'express';
import { FileconvError } from '../../src/errors.js';
import { refundQuota } from '../../src/policy/enforce.js';
import { assertFileSize } from '../../src/policy/plans.js';
import { chargeQuota, clientOf } from './access.js';
import { receiveSingleFile } from './multipart.js';
import { convertRequest } from './request-schemas.js';
import { jobIdParam, parse, type RouteContext, sendResult, withCharge } from './route-context.js';
import { uploadedFileView } from './views.js';

export function addFlowBRoutes(router: Router, ctx: RouteContext): void {
  router.post('/api/upload', async (req, res) => {
    const client = clientOf(res);
    const maxBytes = client.plan.maxFileBytes;
    const declared = Number(req.get('content-length'));
    // Multipart framing is small: a body far over the limit cannot hold a file under it, so it is refused unread.
    if (Number.isFinite(declared) && declared > maxBytes + 64 * 1024) assertFileSize(client.plan, declared);
    const ticket = await chargeQuota(ctx.access, res, 'files');
    const file = await receiveSingleFile(req, {
      maxBytes,
      onFile: (incoming) =>
        ctx.engine.uploadFile({
          owner: client.owner,
          fileName: incoming.fileName,
          body: incoming.stream,
          maxBytes,
          contentType: incoming.mimeType,
        }),
      discard: (stored) => ctx.engine.deleteFile(stored.id),
    }).catch(async (error: unknown) => {
      // Nothing was kept: a refused upload does not use up a file of the hour.
      if (ctx.access.counters && ticket) await refundQuota(ctx.access.counters, ticket, ctx.now());
      throw error;
    });
    res.json(uploadedFileView(file));
  });

  router.post('/api/convert', ctx.json, async (req, res) => {
    const client = clientOf(res);
    const body = parse(convertRequest, req.body);
    const file = await ctx.engine.getFile(body.fileId, client.owner);
    if (body.fileName !== file.fileName) {
      throw new FileconvError('INVALID_REQUEST', 'fileName must be the name the upload returned.', {
        details: { expected: file.fileName },
      });
    }
    const job = await withCharge(ctx, res, 1, (charge) =>
      ctx.engine.createJob({
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
    const done = await ctx.engine.waitForJob(job.id, {
      timeoutMs: ctx.convertTimeoutMs,
      signal: gone.signal,
    });
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
    await ctx.engine.getJob(id, client.owner);
    await sendResult(res, ctx.engine, id);
  });
}
