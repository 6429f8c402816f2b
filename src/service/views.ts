/** The JSON shapes of the specification's resources, built from engine records. */
import type { FileRecord, Job } from '../core/jobs/types.js';

/** GET /api/jobs/{jobId}: the specification's ten fields, then additive ones. */
export function jobView(job: Job, downloadUrl: string | null) {
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
    // Only on jobs created with a webhookUrl: how its delivery went.
    ...(job.webhook ? { webhook: { ...job.webhook } } : {}),
    // Only on document operation jobs: which operation, over which files in order.
    ...(job.operation
      ? { operation: job.operation, inputFiles: (job.inputs ?? []).map((input) => input.fileName) }
      : {}),
  };
}

/** POST /api/upload's answer. */
export function uploadedFileView(file: FileRecord) {
  return { fileId: file.id, fileName: file.fileName, size: file.size };
}
