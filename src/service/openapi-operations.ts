/**
 * The one table of the API description: every operation the router serves, with its request
 * body, success answer and the error codes it can return beyond the common ones. openapi.ts
 * turns it into the document; test/http/openapi.test.ts compares it with the router's own routes,
 * so a route added without a row here fails that test. To document a new route, add a row.
 */
import type { ErrorCode } from '../core/errors.js';
import type { ApiOperation, ParameterSpec } from './openapi-types.js';
import { MAX_JOB_WAIT_SECONDS } from './wire/requests.js';

const jobId: ParameterSpec = {
  name: 'jobId',
  in: 'path',
  description: 'The job id.',
  schema: { type: 'string' },
};
/** The query of a local signed URL: the API hands these URLs out whole; clients never build them. */
const signedQuery: readonly ParameterSpec[] = [
  {
    name: 'expires',
    in: 'query',
    description: 'Expiry, epoch seconds (signed).',
    schema: { type: 'integer' },
  },
  {
    name: 'signature',
    in: 'query',
    description: 'HMAC-SHA256 signature of the URL.',
    schema: { type: 'string' },
  },
];
const binary = { mediaType: '*/*' } as const;
function tusHeader(name: string, description: string): ParameterSpec {
  return { name, in: 'header', description, schema: { type: 'string' } };
}
const tusResumable = tusHeader('Tus-Resumable', 'The tus protocol version: `1.0.0` (412 otherwise).');
const tusFileId: ParameterSpec = {
  name: 'fileId',
  in: 'path',
  description: 'The last segment of the upload URL (Location).',
  schema: { type: 'string' },
};
/** What JSON bodies add: the body parser's refusals (malformed JSON, over 64 KiB) and validation. */
const JSON_BODY: readonly ErrorCode[] = ['INVALID_REQUEST', 'REQUEST_TOO_LARGE'];
/** The job errors a conversion can end in (also a job's `error.code`). */
const CONVERSION: readonly ErrorCode[] = [
  'CONTENT_MISMATCH',
  'CORRUPT_INPUT',
  'PASSWORD_PROTECTED',
  'INPUT_LIMIT_EXCEEDED',
  'UNSAFE_INPUT',
  'URL_UNREACHABLE',
  'CONVERSION_FAILED',
  'ENGINE_UNAVAILABLE',
  'CONVERSION_TIMEOUT',
  'CANCELED',
];
const CREATE: readonly ErrorCode[] = [
  ...JSON_BODY,
  'INVALID_OPTIONS',
  'NOT_FOUND',
  'NOT_UPLOADED',
  'SIZE_MISMATCH',
  'UNSUPPORTED_FORMAT',
  'UNSUPPORTED_CONVERSION',
  'CONTENT_MISMATCH',
  'QUOTA_EXCEEDED',
  'OVERLOADED',
];
const download = {
  description: 'The converted file, with its Content-Type, Content-Length and Content-Disposition.',
  content: binary,
  headers: ['Content-Disposition'],
} as const;

export const OPERATIONS: readonly ApiOperation[] = [
  // ---- Flow A: upload grant, PUT, job, polling ----
  {
    method: 'post',
    path: '/api/files/get-upload-url',
    operationId: 'getUploadUrl',
    idempotent: true,
    tag: 'Flow A',
    summary: 'Get a pre-signed upload URL',
    description: 'Creates a pending file record; PUT the bytes to `uploadUrl` within `expiresIn` seconds.',
    body: { schema: 'UploadUrlRequest' },
    ok: { description: 'The upload grant.', content: { schema: 'UploadGrant' } },
    errors: [...JSON_BODY, 'FILE_TOO_LARGE', 'CORRUPT_INPUT', 'QUOTA_EXCEEDED'],
    rateLimit: 'upload',
  },
  {
    method: 'put',
    path: '/api/files/{fileId}/content',
    operationId: 'putFileContent',
    tag: 'Flow A',
    summary: 'Upload the file bytes (the signed uploadUrl)',
    description:
      'The local stand-in for a presigned storage PUT, reached through `uploadUrl` (S3 storage hands out its own URL instead). The signature is the credential; Content-Type must be the `contentType` of the grant and the body exactly `fileSize` bytes.',
    parameters: [{ ...jobId, name: 'fileId', description: 'The file id of the grant.' }, ...signedQuery],
    body: { ...binary, description: 'The raw file bytes.' },
    ok: { description: 'Stored; empty body.' },
    errors: ['SIGNATURE_INVALID', 'URL_EXPIRED', 'ALREADY_UPLOADED', 'SIZE_MISMATCH', 'FILE_TOO_LARGE'],
    rateLimit: 'upload',
  },
  {
    method: 'post',
    path: '/api/files/multipart',
    operationId: 'createMultipartUpload',
    idempotent: true,
    tag: 'Flow A',
    summary: 'Get pre-signed part URLs for a large file (S3 storage)',
    description:
      "For storage that presigns multipart uploads (S3); other storage answers NOT_FOUND. Creates a pending file record and one pre-signed URL per part: PUT part n (the file bytes [(n-1)*partSize, n*partSize), exactly that many) to its URL, in any order or in parallel, keep the ETag header each PUT answers, then POST them to `completeUrl` within `expiresIn` seconds. Charged and size-limited like get-upload-url. Browsers need the bucket's CORS to expose the ETag header.",
    body: { schema: 'UploadUrlRequest' },
    ok: { description: 'The multipart grant.', content: { schema: 'MultipartGrant' } },
    errors: [...JSON_BODY, 'NOT_FOUND', 'FILE_TOO_LARGE', 'CORRUPT_INPUT', 'QUOTA_EXCEEDED'],
    rateLimit: 'upload',
  },
  {
    method: 'post',
    path: '/api/files/{fileId}/complete',
    operationId: 'completeMultipartUpload',
    tag: 'Flow A',
    summary: 'Complete a multipart upload: the file is then uploaded',
    description:
      'Assembles the parts into the file. Its size must be the declared `fileSize`: otherwise SIZE_MISMATCH and nothing is kept. Parts S3 does not have (a wrong ETag, a part never stored) are INVALID_REQUEST.',
    parameters: [{ ...jobId, name: 'fileId', description: 'The file id of the multipart grant.' }],
    body: { schema: 'CompleteMultipartRequest' },
    ok: { description: 'The uploaded file.', content: { schema: 'CompletedUpload' } },
    errors: [...JSON_BODY, 'NOT_FOUND', 'ALREADY_UPLOADED', 'SIZE_MISMATCH', 'UPLOAD_EXPIRED'],
    rateLimit: 'default',
  },
  {
    method: 'delete',
    path: '/api/files/{fileId}/multipart',
    operationId: 'abortMultipartUpload',
    tag: 'Flow A',
    summary: 'Abort a multipart upload',
    description: 'Drops the parts stored so far and the pending file record.',
    parameters: [
      { ...jobId, name: 'fileId', description: 'The file id of the multipart grant.' },
      {
        name: 'uploadId',
        in: 'query',
        description: 'The `uploadId` of the grant.',
        schema: { type: 'string' },
      },
    ],
    ok: { description: 'Aborted; empty body.' },
    errors: ['INVALID_REQUEST', 'NOT_FOUND', 'INVALID_STATE'],
    rateLimit: 'default',
  },
  {
    method: 'post',
    path: '/api/jobs/create',
    operationId: 'createJob',
    idempotent: true,
    tag: 'Flow A',
    summary: 'Create a conversion job, a document operation job, or a web page capture',
    description:
      'Charges one conversion of the daily quota; the job runs asynchronously, poll it. A body with `operation` and `fileKeys` runs a document operation over the files in order (`{ "operation": "merge", "fileKeys": [...] }`; GET /api/operations lists them) instead of converting one file. A body with `url` and `targetFormat` captures that web page in Chromium (pdf, png, jpg, webp); its address, and every request the page makes, is checked after DNS resolution (private, loopback, link-local and metadata addresses are refused: the job fails with UNSAFE_INPUT; an unreachable page with URL_UNREACHABLE).',
    body: { schema: 'JobRequest' },
    ok: { description: 'The job was queued.', content: { schema: 'CreateJobResult' } },
    errors: CREATE,
    rateLimit: 'upload',
  },
  {
    method: 'post',
    path: '/api/jobs/batch',
    operationId: 'createJobBatch',
    idempotent: true,
    tag: 'Flow A',
    summary: 'Create several jobs at once (plans with batch)',
    description: 'All or nothing: one refused job refuses the batch and charges nothing.',
    body: { schema: 'BatchRequest' },
    ok: { description: 'The jobs were queued, in request order.', content: { schema: 'BatchResult' } },
    errors: [...CREATE, 'PLAN_FEATURE_REQUIRED'],
    rateLimit: 'upload',
  },
  {
    method: 'get',
    path: '/api/jobs/{jobId}',
    operationId: 'getJob',
    tag: 'Flow A',
    summary: 'Poll a job',
    description:
      'When `status` is "completed", GET `downloadUrl` for the result. With `wait`, the answer is held until the job is completed, failed or canceled, or until that many seconds pass (then the job as it is): one request instead of a polling loop.',
    parameters: [
      jobId,
      {
        name: 'wait',
        in: 'query',
        description: `Seconds to wait for the job to settle before answering, 0-${MAX_JOB_WAIT_SECONDS} (default 0: answer at once).`,
        schema: { type: 'integer', minimum: 0, maximum: MAX_JOB_WAIT_SECONDS },
      },
    ],
    ok: { description: 'The job.', content: { schema: 'Job' } },
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    rateLimit: 'default',
  },
  {
    method: 'delete',
    path: '/api/jobs/{jobId}',
    operationId: 'discardJob',
    tag: 'Flow A',
    summary: "Cancel a queued or running job, or delete a completed job's result",
    parameters: [jobId],
    ok: { description: 'The job after the change.', content: { schema: 'Job' } },
    errors: ['INVALID_REQUEST', 'NOT_FOUND', 'INVALID_STATE'],
    rateLimit: 'default',
  },
  {
    method: 'get',
    path: '/api/jobs/{jobId}/result',
    operationId: 'getJobResult',
    tag: 'Flow A',
    summary: 'Download a result (the signed downloadUrl)',
    description: "The local stand-in for a presigned storage GET, reached through a job's `downloadUrl`.",
    parameters: [jobId, ...signedQuery],
    ok: download,
    errors: ['SIGNATURE_INVALID', 'URL_EXPIRED', 'NOT_FOUND', 'INVALID_STATE', 'RESULT_EXPIRED'],
    rateLimit: 'default',
  },
  // ---- Flow B: multipart upload, convert, download ----
  {
    method: 'post',
    path: '/api/upload',
    operationId: 'uploadFile',
    idempotent: true,
    tag: 'Flow B',
    summary: 'Upload a file (multipart)',
    body: {
      mediaType: 'multipart/form-data',
      schema: {
        type: 'object',
        properties: { file: { description: 'The file; its part carries the file name.' } },
        required: ['file'],
      },
    },
    ok: { description: 'The stored file.', content: { schema: 'UploadedFile' } },
    errors: ['INVALID_REQUEST', 'FILE_TOO_LARGE', 'UNSUPPORTED_FORMAT', 'CORRUPT_INPUT', 'QUOTA_EXCEEDED'],
    rateLimit: 'upload',
  },
  {
    method: 'post',
    path: '/api/convert',
    operationId: 'convert',
    idempotent: true,
    tag: 'Flow B',
    summary: 'Convert an uploaded file, or run a document operation, and wait for the result',
    description:
      'Answers once the result is ready; a failed conversion answers its job error code. A body with `operation` and `fileIds` runs a document operation (merge, split...) over uploaded files in order; one with `url` captures a web page.',
    body: { schema: 'ConvertOrOperationRequest' },
    ok: { description: 'The result is ready.', content: { schema: 'ConvertResult' } },
    errors: [...CREATE, ...CONVERSION],
    rateLimit: 'upload',
  },
  {
    method: 'get',
    path: '/api/download',
    operationId: 'download',
    tag: 'Flow B',
    summary: 'Download a converted file',
    parameters: [
      {
        name: 'id',
        in: 'query',
        description: 'The downloadId convert returned.',
        schema: { type: 'string' },
      },
    ],
    ok: download,
    errors: ['INVALID_REQUEST', 'NOT_FOUND', 'INVALID_STATE', 'RESULT_EXPIRED'],
    rateLimit: 'default',
  },
  // ---- Service: additive endpoints ----
  {
    method: 'get',
    path: '/api/usage',
    operationId: 'getUsage',
    tag: 'Service',
    summary: "The caller's plan, limits, use and reset times",
    ok: { description: 'Usage.', content: { schema: 'Usage' } },
    errors: [],
    rateLimit: 'default',
  },
  {
    method: 'get',
    path: '/api/formats',
    operationId: 'listFormats',
    tag: 'Service',
    summary: 'Every format, its reachable targets and their options',
    description:
      'Lists only targets a conversion can reach from the format (no audio from an image). Cacheable: a strong ETag, 304 Not Modified on If-None-Match; sent br or gzip when the client accepts it.',
    ok: { description: 'The formats.', content: { schema: 'Formats' }, headers: ['ETag'] },
    errors: [],
    rateLimit: 'default',
  },
  {
    method: 'get',
    path: '/api/operations',
    operationId: 'listOperations',
    tag: 'Service',
    summary: 'The document operations jobs may run here, and their options',
    description:
      'Merge, split, rotate, metadata... each with the format and number of files it takes and the JSON Schema of its options. Only operations whose engine is installed are listed.',
    ok: { description: 'The operations.', content: { schema: 'Operations' } },
    errors: [],
    rateLimit: 'default',
  },
  {
    method: 'get',
    path: '/api/health',
    operationId: 'health',
    tag: 'Service',
    summary: 'Liveness and the conversion engines available',
    description: 'For monitors and load balancers: needs no key and spends no rate limit.',
    ok: { description: 'Healthy.', content: { schema: 'Health' } },
    errors: [],
    rateLimit: null,
  },
  {
    method: 'get',
    path: '/api/ready',
    operationId: 'ready',
    tag: 'Service',
    summary: 'Readiness: storage, job store, queue and required engines answer in time',
    description:
      'For load balancers and orchestrators: needs no key and spends no rate limit. 503 while a check fails or the service is shutting down.',
    ok: { description: 'Ready.', content: { schema: 'Readiness' } },
    errors: [],
    rateLimit: null,
    otherAnswers: [
      {
        status: 503,
        description: 'Not ready: the failing checks say why.',
        content: { schema: 'Readiness' },
        headers: ['Retry-After'],
      },
    ],
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Service',
    summary: 'This API description (OpenAPI 3.1)',
    ok: {
      description: 'The OpenAPI document.',
      content: { mediaType: 'application/json', schema: { type: 'object' } },
    },
    errors: [],
    rateLimit: 'default',
  },
  {
    method: 'get',
    path: '/api/docs',
    operationId: 'getDocs',
    tag: 'Service',
    summary: 'This API description as a readable page',
    ok: { description: 'An HTML page.', content: { mediaType: 'text/html', schema: { type: 'string' } } },
    errors: [],
    rateLimit: 'default',
  },
  // ---- Resumable uploads (tus 1.0) ----
  {
    method: 'options',
    path: '/api/tus',
    operationId: 'tusOptions',
    tag: 'tus',
    summary: 'What the tus server offers',
    description:
      "tus discovery: the version, the extensions, the caller's plan's largest upload and the checksum algorithms.",
    ok: {
      status: 204,
      description: 'Empty body; the headers say it all.',
      headers: ['Tus-Resumable', 'Tus-Version', 'Tus-Extension', 'Tus-Max-Size', 'Tus-Checksum-Algorithm'],
    },
    errors: [],
    rateLimit: 'default',
  },
  {
    method: 'post',
    path: '/api/tus',
    operationId: 'tusCreate',
    idempotent: true,
    tag: 'tus',
    summary: 'Create a resumable upload (tus creation)',
    description:
      'Upload-Length is required (no deferred length); Upload-Metadata may carry `filename` (or `name`) and `filetype` (or `type`). Charges the hourly file quota and the upload bytes like an upload grant (a refused creation charges neither). The unfinished upload expires once the upload retention of the plan has passed since its last byte (each PATCH that stores bytes moves it; Free: 15 minutes), at the latest 24 hours after its creation; Upload-Expires tells when. Its bytes are then dropped. With Content-Type `application/offset+octet-stream` the body holds the first bytes (creation-with-upload; Upload-Checksum as for PATCH): the answer then carries Upload-Offset.',
    parameters: [
      tusResumable,
      { ...tusHeader('Upload-Length', "The upload's whole size, bytes."), schema: { type: 'integer' } },
      { ...tusHeader('Upload-Metadata', 'Comma-separated `key base64value` pairs.'), required: false },
    ],
    ok: {
      status: 201,
      description: 'Created; PATCH the bytes to Location.',
      headers: ['Tus-Resumable', 'Location', 'Upload-Expires', 'Upload-Offset'],
    },
    errors: [
      'INVALID_REQUEST',
      'TUS_VERSION_UNSUPPORTED',
      'FILE_TOO_LARGE',
      'CORRUPT_INPUT',
      'QUOTA_EXCEEDED',
      'CHECKSUM_MISMATCH',
    ],
    body: {
      mediaType: 'application/offset+octet-stream',
      description: 'Optional: the first bytes of the upload (creation-with-upload).',
      required: false,
    },
    rateLimit: 'upload',
  },
  {
    method: 'head',
    path: '/api/tus/{fileId}',
    operationId: 'tusOffset',
    tag: 'tus',
    summary: 'Where a resumable upload stands',
    description:
      "Another owner's upload is 404, like a missing one; an expired one is 410 (its bytes dropped).",
    parameters: [tusFileId, tusResumable],
    ok: {
      description: 'Empty body.',
      headers: ['Tus-Resumable', 'Upload-Offset', 'Upload-Length', 'Upload-Expires'],
    },
    errors: ['NOT_FOUND', 'TUS_VERSION_UNSUPPORTED', 'UPLOAD_EXPIRED'],
    rateLimit: 'default',
  },
  {
    method: 'patch',
    path: '/api/tus/{fileId}',
    operationId: 'tusAppend',
    tag: 'tus',
    summary: 'Append bytes to a resumable upload',
    description:
      "Content-Type `application/offset+octet-stream`; Upload-Offset must be the stored offset (409 OFFSET_MISMATCH otherwise: HEAD, then retry). Upload-Checksum `<sha1|sha256|md5> <base64>` keeps the bytes only if they match (460 CHECKSUM_MISMATCH, nothing kept). Bytes past Upload-Length are refused (413, none of the request kept). A connection that drops keeps what arrived; a newer PATCH to the same upload stops an older one still running. Stored bytes move the expiry to the plan's upload retention after them (Upload-Expires). The last byte makes the upload an uploaded file, kept for the plan's upload retention.",
    parameters: [
      tusFileId,
      tusResumable,
      { ...tusHeader('Upload-Offset', 'Where these bytes start.'), schema: { type: 'integer' } },
      {
        ...tusHeader('Upload-Checksum', "`<algorithm> <base64 digest>` of this request's bytes."),
        required: false,
      },
    ],
    body: { mediaType: 'application/offset+octet-stream', description: 'The next bytes of the upload.' },
    ok: {
      status: 204,
      description: 'Stored; Upload-Offset is the new offset.',
      headers: ['Tus-Resumable', 'Upload-Offset', 'Upload-Expires'],
    },
    errors: [
      'INVALID_REQUEST',
      'NOT_FOUND',
      'OFFSET_MISMATCH',
      'VERSION_CONFLICT',
      'UPLOAD_EXPIRED',
      'FILE_TOO_LARGE',
      'UNSUPPORTED_FORMAT',
      'TUS_VERSION_UNSUPPORTED',
      'UPLOAD_LOCKED',
      'CHECKSUM_MISMATCH',
    ],
    rateLimit: 'default',
  },
  {
    method: 'delete',
    path: '/api/tus/{fileId}',
    operationId: 'tusTerminate',
    tag: 'tus',
    summary: 'Terminate a resumable upload (or delete the finished file)',
    parameters: [tusFileId, tusResumable],
    ok: { status: 204, description: 'Gone: bytes and record.', headers: ['Tus-Resumable'] },
    errors: ['NOT_FOUND', 'TUS_VERSION_UNSUPPORTED'],
    rateLimit: 'default',
  },
];
