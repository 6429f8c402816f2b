/**
 * Presigned multipart uploads (services on S3 storage): large files go straight to the bucket in
 * parts, several at once, each part retried on its own, and the API node never sees the bytes.
 * In browsers the bucket's CORS rules must allow PUT from the page's origin and expose the ETag
 * header, which the completion needs.
 */
import { FileconvApiError } from './errors.js';
import { callJson, headersFor, send, type Transport, urlOf } from './http.js';
import type { CallOptions, MultipartUploadOptions } from './options.js';
import type { CompletedUpload, CompleteMultipartRequest, MultipartGrant, UploadUrlRequest } from './types.js';
import { isBlob } from './upload.js';

type PartBody = Blob | Uint8Array;

export function multipartCalls(t: Transport) {
  const filePath = (fileId: string, rest: string) => `/api/files/${encodeURIComponent(fileId)}/${rest}`;

  const calls = {
    /** A grant: one presigned PUT URL per part (NOT_FOUND when the service's storage cannot presign them). */
    startMultipartUpload(request: UploadUrlRequest, { signal }: CallOptions = {}): Promise<MultipartGrant> {
      return callJson(t, { method: 'POST', path: '/api/files/multipart', json: request, signal });
    },

    /** Assembles the parts (the ETag each PUT answered, by part number) into the uploaded file. */
    completeMultipartUpload(
      grant: Pick<MultipartGrant, 'fileId' | 'uploadId'>,
      parts: readonly { partNumber: number; etag: string }[],
      { signal }: CallOptions = {},
    ): Promise<CompletedUpload> {
      const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
      return callJson(t, {
        method: 'POST',
        path: filePath(grant.fileId, 'complete'),
        json: { uploadId: grant.uploadId, parts: sorted } satisfies CompleteMultipartRequest,
        signal,
      });
    },

    /** Drops the parts stored so far and the pending file. */
    async abortMultipartUpload(
      grant: Pick<MultipartGrant, 'fileId' | 'uploadId'>,
      { signal }: CallOptions = {},
    ): Promise<void> {
      // An empty answer, not JSON: sent without callJson.
      const url = urlOf(t, filePath(grant.fileId, 'multipart'), { uploadId: grant.uploadId });
      const headers = headersFor(t, false, { accept: 'application/json' });
      const response = await send(t, url, () => t.fetch(url, { method: 'DELETE', headers, signal }), {
        signal,
      });
      await response.body?.cancel();
    },

    /**
     * The whole upload: grant, parts (`concurrency` at once), completion. On a failure the upload
     * is aborted (nothing stays in the bucket) and the error thrown.
     */
    async uploadMultipart(
      body: Blob | ArrayBuffer | Uint8Array,
      options: MultipartUploadOptions,
    ): Promise<CompletedUpload> {
      const { signal, onProgress } = options;
      const bytes: PartBody = isBlob(body) ? body : body instanceof Uint8Array ? body : new Uint8Array(body);
      const size = isBlob(bytes) ? bytes.size : bytes.byteLength;
      const contentType = options.contentType ?? ((isBlob(body) && body.type) || 'application/octet-stream');
      const grant = await calls.startMultipartUpload(
        { fileName: options.fileName, fileSize: size, contentType },
        { signal },
      );
      const etags: { partNumber: number; etag: string }[] = [];
      let stored = 0;
      onProgress?.(0, size);
      try {
        const queue = [...grant.parts];
        const worker = async () => {
          for (let part = queue.shift(); part; part = queue.shift()) {
            const start = (part.partNumber - 1) * grant.partSize;
            const end = Math.min(start + grant.partSize, size);
            const piece = isBlob(bytes) ? bytes.slice(start, end) : bytes.subarray(start, end);
            const url = part.url;
            const response = await send(t, url, () => t.fetch(url, { method: 'PUT', body: piece, signal }), {
              signal,
              idempotent: true, // a part PUT again stores the same bytes
            });
            await response.body?.cancel();
            const etag = response.headers.get('etag');
            if (!etag) {
              throw new FileconvApiError({
                code: 'INTERNAL',
                status: response.status,
                message:
                  'A part PUT answered without an ETag header: the bucket\'s CORS rules must expose "ETag".',
              });
            }
            etags.push({ partNumber: part.partNumber, etag });
            stored += isBlob(piece) ? piece.size : piece.byteLength;
            onProgress?.(stored, size);
          }
        };
        const workers = Math.max(1, Math.min(options.concurrency ?? 4, grant.parts.length));
        await Promise.all(Array.from({ length: workers }, worker));
        return await calls.completeMultipartUpload(grant, etags, { signal });
      } catch (error) {
        await calls.abortMultipartUpload(grant).catch(() => undefined);
        throw error;
      }
    },
  };
  return calls;
}
