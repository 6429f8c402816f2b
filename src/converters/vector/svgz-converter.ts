/**
 * The svgz converter: unpacks a gzipped SVG and packs an SVG, in process with Node's zlib. Other
 * targets are reached through svg (svgz -> svg -> png, -> pdf), where the SVG is vetted before it
 * is rendered; unpacking renders nothing, so it only checks that SVG came out. Inflating stops at
 * MAX_SVG_BYTES, the image converter's SVG limit, so a gzip bomb is refused, not inflated.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { FileconvError } from '../../core/errors.js';
import { sniffText } from '../../core/formats/detect-text.js';
import type { Availability, Converter, ConvertResult } from '../../core/ports/index.js';
import { edgeGuard, runInProcess } from '../../kit/converter-kit.js';
import { placeFile } from '../../kit/place-file.js';
import { SVGZ } from './registration.js';
import { SVGZ_EDGES } from './vector-edges.js';
import type { VectorOptions } from './vector-options.js';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/** Largest SVG handled, packed or unpacked: the image converter's SVG limit (image/probe.ts). */
const MAX_SVG_BYTES = 64 * 1024 * 1024;

function tooLarge(what: string, cause?: unknown): FileconvError {
  return new FileconvError('INPUT_LIMIT_EXCEEDED', `${what} is larger than ${MAX_SVG_BYTES} bytes`, {
    ...(cause === undefined ? {} : { cause }),
    details: { maxBytes: MAX_SVG_BYTES },
  });
}

async function unpack(input: string): Promise<Buffer> {
  if ((await stat(input)).size > MAX_SVG_BYTES) throw tooLarge('The compressed SVG');
  const svg = await gunzipAsync(await readFile(input), { maxOutputLength: MAX_SVG_BYTES }).catch(
    (error: unknown) => {
      if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw tooLarge('The SVG inside', error);
      }
      throw new FileconvError(
        'CORRUPT_INPUT',
        'The compressed SVG could not be inflated (truncated or not gzip)',
        {
          cause: error,
        },
      );
    },
  );
  if (sniffText(svg.subarray(0, 64 * 1024)) !== 'svg') {
    throw new FileconvError('CORRUPT_INPUT', 'The gzip stream does not hold an SVG document');
  }
  return svg;
}

async function pack(input: string): Promise<Buffer> {
  if ((await stat(input)).size > MAX_SVG_BYTES) throw tooLarge('The SVG');
  const svg = await readFile(input);
  if (sniffText(svg.subarray(0, 64 * 1024)) !== 'svg') {
    throw new FileconvError('CORRUPT_INPUT', 'The input is not an SVG document');
  }
  return gzipAsync(svg, { level: 9 });
}

/** Creates the svgz converter (svgz <-> svg). */
export function createSvgzConverter(): Converter<VectorOptions> {
  const guard = edgeGuard('svgz', SVGZ_EDGES);
  return {
    ...SVGZ,
    available: async (): Promise<Availability> => ({ ok: true, version: `zlib ${process.versions.zlib}` }),
    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      const scratch = join(ctx.tempDir, `svgz-${randomUUID()}.${ctx.to}`);
      const work = async () => {
        try {
          const bytes = ctx.from === 'svgz' ? await unpack(ctx.inputPath) : await pack(ctx.inputPath);
          await writeFile(scratch, bytes);
          await placeFile(scratch, ctx.outputPath);
        } finally {
          await rm(scratch, { force: true });
        }
      };
      return runInProcess(ctx, work, (error) =>
        error instanceof FileconvError
          ? error
          : new FileconvError('CONVERSION_FAILED', `svgz: ${(error as Error).message}`, { cause: error }),
      );
    },
  };
}
