/**
 * Flow A for large files on storage that presigns multipart uploads (S3): the client asks for a
 * grant with one presigned URL per part, PUTs the parts straight to the bucket (in parallel,
 * again after a failure: the API node never sees the bytes), then completes the upload with the
 * ETags the PUTs answered, and the file is `uploaded`. It is charged like get-upload-url (a file
 * and its declared bytes) and refused above the plan's file size. Storage without the capability
 * (fs, memory) answers NOT_FOUND, pointing at the single PUT and at tus.
 */
import { FileconvError } from '../core/errors.js';
import { assertFileSize, uploadRetentionMsOf } from '../core/policy/plans.js';
import type { PresignedMultipartUploads } from '../core/ports/index.js';
import { emptyAnswer, jsonAnswer, singleQueryValue } from './exchange.js';
import { readJsonBody } from './json-body.js';
import { jobIdParam, parse, type RouteContext, UPLOAD_URL_EXPIRES_IN } from './route-context.js';
import type { Route } from './routes.js';
import type { CompletedUpload, MultipartGrant } from './wire/index.js';
import { completeMultipartRequest, uploadUrlRequest } from './wire/index.js';

const MiB = 1024 * 1024;
/** S3's limit on a presigned URL's lifetime. */
const MAX_EXPIRES_IN = 7 * 24 * 60 * 60;
/** The completion lists up to 10,000 parts of ~100 bytes of JSON each. */
const COMPLETE_BODY_LIMIT = 2 * MiB;

/**
 * How long the part URLs and the pending record live: Flow A's ten minutes plus a second per
 * MiB, so a client sending 1 MiB/s or faster finishes in time (5 GiB: about 1 h 35 min).
 */
export function multipartExpiresIn(size: number): number {
  return Math.min(UPLOAD_URL_EXPIRES_IN + Math.ceil(size / MiB), MAX_EXPIRES_IN);
}

export function multipartRoutes(ctx: RouteContext): Route[] {
  function capability(): PresignedMultipartUploads {
    const multipart = ctx.engine.storage?.presignedMultipart;
    if (multipart) return multipart;
    throw new FileconvError(
      'NOT_FOUND',
      "Multipart uploads straight to storage need a storage that presigns them (S3); this service's storage does not. Upload with POST /api/files/get-upload-url, or resumably with tus at /api/tus.",
      { details: { capability: 'presignedMultipart' } },
    );
  }

  const fileIdOf = (params: Record<string, string>) => parse(jobIdParam, params.fileId, 'file id');

  return [
    {
      method: 'POST',
      path: '/api/files/multipart',
      idempotent: true,
      async handle(call) {
        const multipart = capability();
        const { client } = call;
        const body = parse(uploadUrlRequest, await readJsonBody(call.exchange));
        assertFileSize(client.plan, body.fileSize);
        await call.meter.charge('files');
        await call.meter.charge('uploadBytes', body.fileSize);
        const expiresIn = multipartExpiresIn(body.fileSize);
        const file = await ctx.engine.createUploadGrant({
          owner: client.owner,
          fileName: body.fileName,
          size: body.fileSize,
          contentType: body.contentType,
          expiresInSeconds: expiresIn,
          retentionMs: uploadRetentionMsOf(client.plan),
        });
        let grant: Awaited<ReturnType<PresignedMultipartUploads['presign']>>;
        try {
          grant = await multipart.presign(file.key, {
            contentType: file.contentType,
            size: file.size,
            expiresIn,
          });
        } catch (error) {
          await ctx.engine.deleteFile(file.id).catch(() => {});
          throw error;
        }
        return jsonAnswer(200, {
          fileId: file.id,
          fileKey: file.key,
          uploadId: grant.uploadId,
          partSize: grant.partSize,
          parts: grant.parts,
          expiresIn,
          completeUrl: `${call.baseUrl}/api/files/${file.id}/complete`,
        } satisfies MultipartGrant);
      },
    },
    {
      method: 'POST',
      path: '/api/files/:fileId/complete',
      async handle(call, params) {
        const multipart = capability();
        const body = parse(completeMultipartRequest, await readJsonBody(call.exchange, COMPLETE_BODY_LIMIT));
        const file = await ctx.engine.getFile(fileIdOf(params), call.client.owner);
        if (file.status === 'uploaded') {
          throw new FileconvError('ALREADY_UPLOADED', 'This file has already been uploaded.', {
            details: { fileId: file.id },
          });
        }
        await multipart.complete(file.key, body);
        // The object's size against the declared one: SIZE_MISMATCH deletes the object.
        const uploaded = await ctx.engine.confirmUpload(file.id, call.client.owner);
        return jsonAnswer(200, {
          fileId: uploaded.id,
          fileKey: uploaded.key,
          fileName: uploaded.fileName,
          size: uploaded.size,
        } satisfies CompletedUpload);
      },
    },
    {
      method: 'DELETE',
      path: '/api/files/:fileId/multipart',
      async handle(call, params) {
        const multipart = capability();
        const uploadId = singleQueryValue(call.exchange.query, 'uploadId');
        if (!uploadId) {
          throw new FileconvError(
            'INVALID_REQUEST',
            "Name the upload to abort: ?uploadId=<the grant's uploadId>.",
          );
        }
        const file = await ctx.engine.getFile(fileIdOf(params), call.client.owner);
        if (file.status === 'uploaded') {
          throw new FileconvError(
            'INVALID_STATE',
            'This upload is complete: there is nothing left to abort.',
            {
              details: { fileId: file.id },
            },
          );
        }
        await multipart.abort(file.key, { uploadId });
        await ctx.engine.deleteFile(file.id, call.client.owner);
        return emptyAnswer(200);
      },
    },
  ];
}
