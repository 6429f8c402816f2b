/**
 * A finished job's options without their secrets (core/secret-options.ts): the schema they were
 * validated with, the conversion's last step's or the operation's, says which values are
 * writeOnly. Called by applyJobEvent when a job reaches a final status.
 */

import type { Job } from '../core/jobs/types.js';
import { withoutWriteOnly } from '../core/secret-options.js';
import type { JobContext } from './engine-context.js';
import { optionsSchemaOf } from './file-converter.js';

export async function settledOptions(context: JobContext, job: Job): Promise<Record<string, unknown>> {
  if (Object.keys(job.options).length === 0) return job.options;
  const of = (declared: boolean) =>
    optionsSchemaOf(context.conversion, job.sourceFormat, job.targetFormat, declared);
  // A job that failed because its engine is missing here still has a declared schema to read.
  const schema = job.operation
    ? context.conversion.operations.get(job.operation)?.optionsSchema
    : await of(context.plansOnDeclaredEdges)
        .catch(() => of(true))
        .catch(() => undefined);
  return schema ? withoutWriteOnly(schema, job.options) : job.options;
}
