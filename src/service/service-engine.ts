/**
 * What the HTTP service uses of an engine, and nothing more: uploads, jobs and results, who runs
 * the jobs, readiness, the queue's depth (stats, for maxQueuedJobs), and what jobs may ask for
 * (formats, plans, option schemas, operations). A job engine (createJobEngine) is one; so is an
 * engine of the deprecated createEngine, whose `ports` say whether it was given what jobs need.
 */
import type { Storage } from '../core/ports/index.js';
import type { JobEngine } from '../engine/job-engine.js';
import type { JobPortName } from '../engine/job-ports.js';

export type ServiceEngine = Pick<
  JobEngine,
  | 'uploadFile'
  | 'createUploadGrant'
  | 'receiveUpload'
  | 'getFile'
  | 'confirmUpload'
  | 'deleteFile'
  | 'createResumableUpload'
  | 'getResumableUpload'
  | 'appendResumable'
  | 'terminateResumable'
  | 'createJob'
  | 'createJobs'
  | 'getJob'
  | 'discardJob'
  | 'waitForJob'
  | 'openResult'
  | 'workerStatus'
  | 'readiness'
  | 'stats'
  | 'formats'
  | 'plan'
  | 'optionsSchema'
  | 'converters'
  | 'operations'
> & {
  /** Where uploads live (the service presigns with it when it can). */
  readonly storage: Storage | undefined;
  /** Which of the ports jobs need the engine has (createEngine's engines); a job engine has all. */
  readonly ports?: Readonly<Record<JobPortName, boolean>>;
};
