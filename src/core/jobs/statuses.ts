/**
 * The status vocabularies of the engine's records. A file of its own, importing nothing, because
 * the wire schemas (service/wire/answers.ts) name them and the browser's web page type-checks
 * against those: it must reach no Node type (types.ts reaches node:stream through ports.ts).
 */

export const JOB_STATUSES = ['queued', 'processing', 'completed', 'failed', 'canceled', 'expired'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const WEBHOOK_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export const FILE_STATUSES = ['pending', 'uploaded'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];
