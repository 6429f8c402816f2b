/**
 * A deterministic fake converter, for testing engines and host apps without real engines: it
 * writes a header line naming the step followed by the input bytes, reports progress in even
 * steps, honours abort, and can be told to fail with a given error code. It keeps the Converter
 * contract itself (it passes testConverter), so what a host sees with it holds for real ones.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { throwIfAborted } from '../core/abort.js';
import { type ErrorCode, FileconvError } from '../core/errors.js';
import { assertNotEmpty } from '../core/file-size.js';
import type { ConversionEdge, ConvertContext, Converter, ConvertResult } from '../core/ports/index.js';

export interface FakeConverterOptions {
  /** Converter name. Default 'fake'. */
  name?: string;
  /** Edges it declares. Default txt -> md (both text, so the output is still a valid file of its format). */
  edges?: readonly ConversionEdge[];
  /** Total time one conversion takes, spread over the progress steps, ms. Default 0. */
  delayMs?: number;
  /** Fail every conversion with this code (or this very error) after the progress steps. Default: never fail. */
  failWith?: ErrorCode | FileconvError;
  /** Number of progress reports after the initial 0 (1/n, 2/n, ... 1, the last once the output is written). Default 4. */
  progressSteps?: number;
}

const DEFAULT_EDGES: readonly ConversionEdge[] = [{ from: 'txt', to: 'md', cost: 1 }];

/** The first line of every output: what was converted, so a test can tell which step ran. */
export function fakeOutputHeader(name: string, from: string, to: string): string {
  return `fileconv-fake ${name}: ${from} -> ${to}\n`;
}

export function createFakeConverter(options: FakeConverterOptions = {}): Converter {
  const name = options.name ?? 'fake';
  const edges = options.edges ?? DEFAULT_EDGES;
  const delayMs = options.delayMs ?? 0;
  const steps = options.progressSteps ?? 4;
  // Fail fast on a bad option, naming it, like the real factories do.
  if (!name.trim())
    throw new FileconvError('INVALID_OPTIONS', 'createFakeConverter: name must not be empty.');
  if (!(delayMs >= 0) || !Number.isFinite(delayMs)) {
    throw new FileconvError('INVALID_OPTIONS', `createFakeConverter: delayMs must be >= 0, got ${delayMs}.`);
  }
  if (!Number.isInteger(steps) || steps < 1) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `createFakeConverter: progressSteps must be a positive integer, got ${steps}.`,
    );
  }
  const declared = new Set(edges.map((edge) => `${edge.from}>${edge.to}`));

  return {
    name,
    edges,
    available: async () => ({ ok: true, version: 'fake 1' }),
    // No options: an empty strict object still rejects unknown keys, as the contract asks.
    optionsSchema: () => z.strictObject({}),

    async convert(ctx: ConvertContext): Promise<ConvertResult> {
      throwIfAborted(ctx.signal);
      if (!declared.has(`${ctx.from}>${ctx.to}`)) {
        throw new FileconvError(
          'UNSUPPORTED_CONVERSION',
          `The ${name} converter cannot convert '${ctx.from}' to '${ctx.to}'`,
        );
      }
      const input = await readFile(ctx.inputPath);
      // What every real converter does with zero bytes, so hosts can exercise that path too.
      assertNotEmpty(input.length);
      ctx.onProgress(0);
      for (let step = 1; step <= steps; step++) {
        if (delayMs > 0) {
          await sleep(delayMs / steps, undefined, { signal: ctx.signal }).catch(() => undefined);
        }
        throwIfAborted(ctx.signal);
        // The last step (1) is reported once the output is in place.
        if (step < steps) ctx.onProgress(step / steps);
      }
      if (options.failWith !== undefined) {
        throw options.failWith instanceof FileconvError
          ? options.failWith
          : new FileconvError(options.failWith, `The ${name} converter was told to fail.`);
      }
      // Written in tempDir and renamed, so the output path only ever holds a complete file.
      const scratch = join(ctx.tempDir, `${name}-${randomUUID()}`);
      try {
        await writeFile(
          scratch,
          Buffer.concat([Buffer.from(fakeOutputHeader(name, ctx.from, ctx.to)), input]),
        );
        throwIfAborted(ctx.signal);
        await rename(scratch, ctx.outputPath);
      } catch (error) {
        await rm(scratch, { force: true });
        throw error;
      }
      ctx.onProgress(1);
      return { cpuMs: 0 };
    },
  };
}
