/**
 * The JSON shapes of the specification's resources, built from engine records. Typed by the wire
 * schemas (wire/answers.ts): every field is written out, none spread in, so a field the schema
 * lacks is refused by the compiler (an excess property), not only by the tests.
 */
import type { FileRecord, Job } from '../core/jobs/types.js';
import type { JobView, UploadedFile } from './wire/index.js';

/** GET /api/jobs/{jobId}: the specification's ten fields, then additive ones. */
export function jobView(job: Job, downloadUrl: string | null): JobView {
  return {
    jobId: job.id,
    status: job.status,
    downloadUrl,
    error: job.error,
    sourceFormat: job.sourceFormat,
    targetFormat: job.targetFormat,
    fileName: job.fileName,
    // Measured CPU time in minutes; 0 until the conversion has run.
    cpuMinutes: job.cpuMs === null ? 0 : Math.round((job.cpuMs / 60_000) * 1e6) / 1e6,
    createdAt: job.createdAt,
    completedAt: job.completedAt,
    // Additive fields.
    outputName: job.outputName,
    progress: job.progress,
    outputSize: job.outputSize,
    expiresAt: job.status === 'completed' ? job.expiresAt : null,
    // The optional ones are undefined when absent: JSON.stringify leaves such a key out.
    // Only on jobs created with a webhookUrl: how its delivery went.
    webhook: job.webhook
      ? {
          url: job.webhook.url,
          status: job.webhook.status,
          attempts: job.webhook.attempts,
          lastError: job.webhook.lastError,
          deliveredAt: job.webhook.deliveredAt,
        }
      : undefined,
    // Only on document operation jobs: which operation, over which files in order.
    operation: job.operation ? job.operation : undefined,
    inputFiles: job.operation ? (job.inputs ?? []).map((input) => input.fileName) : undefined,
  };
}

/** POST /api/upload's answer. */
export function uploadedFileView(file: FileRecord): UploadedFile {
  return { fileId: file.id, fileName: file.fileName, size: file.size };
}
