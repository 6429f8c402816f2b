/**
 * Jobs that run a document operation (merge, split, rotate...) over one or more uploaded files
 * instead of a conversion chain: checking such a job before it is stored, and running it in the
 * worker. Transport-free, like job-operations.ts.
 */
import { join } from 'node:path';
import { abortError, raceAbort } from '../core/abort.js';
import { FileconvError, toFileconvError } from '../core/errors.js';
import { extensionOf } from '../core/formats/index.js';
import type { Job, JobCharge, JobInput } from '../core/jobs/types.js';
import { baseName, sanitizeFileName } from '../core/names.js';
import { parseOptions } from '../core/options.js';
import type { ConversionLimits, DocumentOperation, WorkLimits } from '../core/ports/index.js';
import { cpuDeltaMs, failedStepCpuMs, resultExtension, subConversions } from './conversion.js';
import type { JobContext } from './engine-context.js';
import { readStoredHead } from './file-head.js';
import { queuedJob } from './job-record.js';
import { pendingWebhook } from './job-webhook.js';
import { resolveSourceFormat } from './planning.js';
import { confirmUpload, getFile } from './upload-operations.js';

export interface CreateOperationJobInput {
  owner: string;
  /** The operation to run: 'merge', 'split', ... (one of the engine's `operations`). */
  operation: string;
  /** The uploaded files it works on, in order. */
  fileIds: readonly string[];
  /** The operation's options (validated against its schema). */
  options?: Record<string, unknown>;
  /** Higher runs first. Default 0. */
  priority?: number;
  /** Stored on the job as `charge` (see Job.charge). */
  charge?: JobCharge | null;
  /** http(s) URL to POST job.completed / job.failed / job.canceled to. */
  webhookUrl?: string;
  /** The work budgets the job must stay within (a plan's; see WorkLimits). */
  limits?: WorkLimits;
}

export function isOperationJobInput(input: object): input is CreateOperationJobInput {
  return 'operation' in input && (input as { operation?: unknown }).operation !== undefined;
}

/**
 * The operation named `name`, if it can run here. An API client sees only what the service
 * offers: an unknown name and one whose engine is missing are both UNSUPPORTED_CONVERSION. An API
 * node (planning on declared edges) offers every operation it is configured with, unchecked: its
 * workers run them.
 */
export async function requireOperation(context: JobContext, name: string): Promise<DocumentOperation> {
  const operation = context.conversion.operations.get(name);
  const availability = !operation
    ? undefined
    : context.plansOnDeclaredEdges
      ? { ok: true }
      : await context.conversion.operationAvailability(operation);
  if (!operation || !availability?.ok) {
    const offered = [...context.conversion.operations.keys()].join(', ') || 'none';
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      operation
        ? `The ${name} operation is not available here (${availability?.reason ?? 'its engine is missing'}).`
        : `There is no operation named ${JSON.stringify(name)} (operations here: ${offered}).`,
      { details: { operation: name } },
    );
  }
  return operation;
}

/** Checks an operation job (the operation, each input's owner and format, the options) and returns its record. */
export async function prepareOperationJob(context: JobContext, input: CreateOperationJobInput): Promise<Job> {
  const { storage } = context;
  const webhook = input.webhookUrl === undefined ? undefined : pendingWebhook(input.webhookUrl);
  const operation = await requireOperation(context, input.operation);
  const count = input.fileIds.length;
  if (count < operation.minInputs || count > operation.maxInputs) {
    const takes =
      operation.minInputs === operation.maxInputs
        ? `${operation.minInputs}`
        : `${operation.minInputs} to ${operation.maxInputs}`;
    throw new FileconvError(
      'INVALID_REQUEST',
      `The ${operation.name} operation takes ${takes} file(s), not ${count}.`,
      { details: { operation: operation.name, files: count } },
    );
  }
  const inputs: JobInput[] = [];
  for (const [index, fileId] of input.fileIds.entries()) {
    const file = await confirmUpload(context, await getFile(context, fileId, input.owner));
    const head = await readStoredHead(storage, file.key, file.size);
    const format = await resolveSourceFormat(
      head,
      undefined,
      file.fileName,
      context.conversion.formats,
    ).catch((error: unknown) => {
      throw inputError(error, index, file.fileName);
    });
    const accepted = operation.accepts?.(index) ?? [operation.input];
    if (!accepted.includes(format)) {
      const takes = accepted.length === 1 ? `${accepted[0]} files only` : `one of ${accepted.join(', ')}`;
      throw new FileconvError(
        'UNSUPPORTED_FORMAT',
        `File ${index + 1} (${file.fileName}) is ${format}; the ${operation.name} operation takes ${takes} there (convert it first).`,
        { details: { index, fileName: file.fileName, format, expected: accepted } },
      );
    }
    inputs.push({ fileId: file.id, inputKey: file.key, fileName: file.fileName });
  }
  const options = parseOptions(
    operation.optionsSchema,
    input.options ?? {},
    `the ${operation.name} operation`,
  );
  operation.checkInputs?.(options, inputs.length);
  const output = operation.output(options);
  const first = inputs[0]!;
  return queuedJob(
    context,
    {
      owner: input.owner,
      fileId: first.fileId,
      inputKey: first.inputKey,
      sourceFormat: operation.input,
      targetFormat: output.format,
      fileName: first.fileName,
      outputName: operationOutputName(
        first.fileName,
        operation.name,
        resultExtension(context.conversion.formats, output.format, output.packaging),
      ),
      packaging: output.packaging,
      options,
      path: [operation.input, output.format],
      operation: operation.name,
      inputs,
    },
    { priority: input.priority, charge: input.charge, webhook, limits: input.limits },
  );
}

/** "report.pdf" merged -> "report-merged.pdf"; split to a zip -> "report-split.zip". */
function operationOutputName(fileName: string, operation: string, extension: string): string {
  const done: Record<string, string> = { merge: 'merged', split: 'split', rotate: 'rotated' };
  return `${baseName(sanitizeFileName(fileName))}-${done[operation] ?? operation}.${extension}`;
}

/** An input's own problem, named by its place among the inputs. */
function inputError(error: unknown, index: number, fileName: string): FileconvError {
  const problem = toFileconvError(error, 'CORRUPT_INPUT');
  return new FileconvError(problem.code, `File ${index + 1} (${fileName}): ${problem.message}`, {
    details: { ...problem.details, index, fileName },
    cause: error,
  });
}

export interface RunOperationInput {
  job: Job;
  /** The staged inputs, in the job's order. */
  inputPaths: readonly string[];
  workDir: string;
  signal: AbortSignal;
  limits: ConversionLimits;
  /** Told the CPU time the operation used when it ends, failed or not (see RunChainInput). */
  onCpuSpent?: (cpuMs: number) => void;
}

/** Runs the job's operation; returns where the result is and the CPU time it took. */
export async function runOperation(
  context: JobContext,
  input: RunOperationInput,
): Promise<{ outputPath: string; cpuMs: number }> {
  const { job, signal } = input;
  const operation = context.conversion.operations.get(job.operation ?? '');
  if (!operation) {
    throw new FileconvError('ENGINE_UNAVAILABLE', `This worker has no ${job.operation} operation.`, {
      details: { operation: job.operation },
    });
  }
  // Accepted by an API node that checks no engine: this worker checks its own.
  const availability = await context.conversion.operationAvailability(operation);
  if (!availability.ok) {
    throw new FileconvError(
      'ENGINE_UNAVAILABLE',
      `The ${operation.name} operation cannot run on this worker (${availability.reason ?? 'its engine is missing'}).`,
      {
        details: {
          operation: operation.name,
          ...(availability.install ? { install: availability.install } : {}),
        },
      },
    );
  }
  const outputPath = join(
    input.workDir,
    `output.${resultExtension(context.conversion.formats, job.targetFormat, job.packaging)}`,
  );
  const startedCpu = process.cpuUsage();
  const result = await raceAbort(
    operation.run({
      inputPaths: input.inputPaths,
      outputPath,
      options: job.options,
      tempDir: input.workDir,
      signal,
      limits: input.limits,
      convertTo: subConversions(context.conversion, { workDir: input.workDir, signal, limits: input.limits }),
    }),
    signal,
  ).catch((error: unknown) => {
    input.onCpuSpent?.(failedStepCpuMs(error, startedCpu));
    throw signal.aborted
      ? abortError(signal)
      : withClientNames(toFileconvError(error, 'CONVERSION_FAILED'), input);
  });
  const cpuMs = result?.cpuMs ?? cpuDeltaMs(startedCpu);
  input.onCpuSpent?.(cpuMs);
  return { outputPath, cpuMs: Math.round(cpuMs) };
}

/**
 * The error with the worker's own paths in its message replaced by what the client knows: a
 * library names the file it could not read ("/tmp/fileconv-x/input-2.pdf is encrypted"), and
 * the service's directories are nobody's business.
 */
function withClientNames(error: FileconvError, input: RunOperationInput): FileconvError {
  let message = error.message;
  for (const [index, path] of input.inputPaths.entries()) {
    const name = input.job.inputs?.[index]?.fileName ?? input.job.fileName;
    message = message.split(path).join(`file ${index + 1} (${name})`);
  }
  message = message.split(input.workDir).join('the work folder');
  if (message === error.message) return error;
  return new FileconvError(error.code, message, { details: error.details, cause: error });
}

/** Where the worker stages input `index` of a job (operations take built-in formats only). */
export function stagedInputPath(workDir: string, job: Job, index: number): string {
  return join(workDir, `input-${index + 1}.${extensionOf(job.sourceFormat)}`);
}
