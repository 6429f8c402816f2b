/**
 * The in-process API: convert a file, a buffer or a stream right now, without storage, jobs or
 * a queue. Every call works in a private temp dir that is removed whatever happens.
 */

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileconvError } from '../core/errors.js';
import { DETECTION_BYTES } from '../core/formats/index.js';
import type { FormatName } from '../core/formats/types.js';
import type { OutputPackaging, WorkLimits } from '../core/ports/index.js';
import { checkWorkLimits, withWorkLimits } from '../core/work-limits.js';
import { checkOutputPath, inputFileError, outputFileError, workDirError } from '../kit/local-files.js';
import { linkInto, placeFile } from '../kit/place-file.js';
import { conversionSignal, runChain } from './conversion.js';
import type { ConversionContext } from './conversion-context.js';
import { conversionFailure } from './conversion-failure.js';
import { readFileHead } from './file-head.js';
import { planConversion, resolveSourceFormat } from './planning.js';

export interface DirectConvertOptions {
  /** Source format; detected from the content (and checked against the file name) when omitted. */
  from?: string;
  /** Target format; for convertFile, taken from the output file's extension when omitted. */
  to?: string;
  /** Conversion options for the target (quality, width, ...), validated by the converter's schema. */
  options?: Record<string, unknown>;
  /** Aborts the conversion (CANCELED). */
  signal?: AbortSignal;
  /** Overrides the engine's timeoutMs for this call. */
  timeoutMs?: number;
  /** Progress as a fraction in [0, 1]. */
  onProgress?: (fraction: number) => void;
  /** Work budgets for this conversion (e.g. a plan's), over the engine's own limits; see WorkLimits. */
  limits?: WorkLimits;
}

export interface ConversionReport {
  from: FormatName;
  to: FormatName;
  /** The formats the conversion went through, source first. */
  path: FormatName[];
  /** Measured CPU time, ms. */
  cpuMs: number;
  /** Size of the result, bytes. */
  outputSize: number;
  /** 'zip' when the result is a zip archive of several target files (every page of a PDF as PNG). */
  packaging?: OutputPackaging;
}

export interface StreamConversion extends ConversionReport {
  /** The result; the temp dir behind it is removed when the stream ends, fails or is destroyed. */
  stream: Readable;
}

/** Converts the file at `inputPath` into `outputPath`, which appears only once it is complete. */
export async function convertFile(
  context: ConversionContext,
  inputPath: string,
  outputPath: string,
  options: DirectConvertOptions = {},
): Promise<ConversionReport> {
  const head = await readFileHead(inputPath).catch((error: unknown) => {
    throw inputFileError(inputPath, error);
  });
  const target = options.to ?? context.formats.fromExtension(outputPath)?.name;
  if (!target) {
    throw new FileconvError(
      'UNSUPPORTED_FORMAT',
      `Cannot tell the target format from ${basename(outputPath)}: name it.`,
    );
  }
  const destination = resolve(outputPath);
  await checkOutputPath(destination);
  const from = await resolveSourceFormat(head, options.from, basename(inputPath), context.formats);
  return withWorkDir(context, async (workDir) => {
    const input = await inputWithExtension(context, inputPath, from, workDir);
    const { report, outputPath: produced } = await convertInWorkDir(
      context,
      input,
      from,
      target,
      workDir,
      options,
    );
    await placeFile(produced, destination).catch((error: unknown) => {
      throw outputFileError(destination, error);
    });
    return report;
  });
}

/** Converts bytes in memory; for large inputs prefer convertStream or convertFile. */
export async function convertBuffer(
  context: ConversionContext,
  input: Uint8Array,
  options: DirectConvertOptions & { to: string },
): Promise<Buffer> {
  const from = await resolveSourceFormat(
    input.subarray(0, DETECTION_BYTES),
    options.from,
    undefined,
    context.formats,
  );
  return withWorkDir(context, async (workDir) => {
    const inputPath = join(workDir, `input.${context.formats.extensionOf(from)}`);
    await writeFile(inputPath, input);
    const { outputPath } = await convertInWorkDir(context, inputPath, from, options.to, workDir, options);
    return readFile(outputPath);
  });
}

/** Converts a stream: the input is spooled to a temp file (never held in memory), the result streamed back. */
export async function convertStream(
  context: ConversionContext,
  input: Readable,
  options: DirectConvertOptions & { to: string },
): Promise<StreamConversion> {
  const workDir = await makeWorkDir(context);
  const cleanup = () => rm(workDir, { recursive: true, force: true });
  try {
    const spooled = join(workDir, 'input');
    await pipeline(input, createWriteStream(spooled));
    const from = await resolveSourceFormat(
      await readFileHead(spooled),
      options.from,
      undefined,
      context.formats,
    );
    const inputPath = join(workDir, `input.${context.formats.extensionOf(from)}`);
    await rename(spooled, inputPath);
    const { report, outputPath } = await convertInWorkDir(
      context,
      inputPath,
      from,
      options.to,
      workDir,
      options,
    );
    const stream = createReadStream(outputPath);
    stream.once('close', () => void cleanup());
    return { ...report, stream };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function convertInWorkDir(
  context: ConversionContext,
  inputPath: string,
  from: FormatName,
  target: string,
  workDir: string,
  options: DirectConvertOptions,
): Promise<{ report: ConversionReport; outputPath: string }> {
  const budgets = options.limits === undefined ? undefined : checkWorkLimits(options.limits);
  const planned = await planConversion(context, from, target, options.options, { explainMissing: true });
  const signal = conversionSignal(options.timeoutMs ?? context.timeoutMs, options.signal);
  const startedAt = performance.now();
  const result = await runChain(context, {
    plan: planned.plan,
    inputPath,
    workDir,
    options: planned.options,
    signal,
    limits: withWorkLimits(context.limits, budgets),
    onProgress: options.onProgress,
  }).catch(async (error: unknown) => {
    // A full disk is NO_SPACE here as in a job: `fileconv convert` said CONVERSION_FAILED with ENOSPC.
    throw await conversionFailure(context.tempDir, error, startedAt);
  });
  const { size } = await stat(result.outputPath);
  const report: ConversionReport = {
    from,
    to: planned.plan.to,
    path: [from, ...planned.plan.steps.map((step) => step.to)],
    cpuMs: result.cpuMs,
    outputSize: size,
    ...(planned.packaging ? { packaging: planned.packaging } : {}),
  };
  return { report, outputPath: result.outputPath };
}

async function withWorkDir<T>(context: ConversionContext, work: (workDir: string) => Promise<T>): Promise<T> {
  const workDir = await makeWorkDir(context);
  try {
    return await work(workDir);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

function makeWorkDir(context: ConversionContext): Promise<string> {
  return mkdtemp(join(context.tempDir, 'fileconv-')).catch((error: unknown) => {
    throw workDirError(context.tempDir, error);
  });
}

/**
 * Some engines pick a decoder from the file extension: when the input's name does not carry one
 * of its format's extensions, link it into the work dir under a name that does (no copy).
 */
async function inputWithExtension(
  context: ConversionContext,
  inputPath: string,
  from: FormatName,
  workDir: string,
): Promise<string> {
  const extensions = context.formats.get(from)?.extensions ?? [];
  const lower = inputPath.toLowerCase();
  if (extensions.some((extension) => lower.endsWith(`.${extension}`))) return inputPath;
  const linked = join(workDir, `input.${context.formats.extensionOf(from)}`);
  await linkInto(inputPath, linked);
  return linked;
}
