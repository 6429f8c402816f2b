/** Shared pieces of the sharp converter tests: a per-test workspace, a context builder, output checks. */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, expect } from 'vitest';
import { parseBmp } from '../../adapters/converters/image/bmp-header.js';
import { readIcoEntries } from '../../adapters/converters/image/ico.js';
import type { ErrorCode } from '../../src/errors.js';
import { FileconvError } from '../../src/errors.js';
import type { ConvertContext } from '../../src/ports.js';

export const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
export const fixture = (name: string) => join(FIXTURES, name);

/** Generous for fixtures, small enough that the crafted bombs exceed it. */
export const MAX_PIXELS = 100_000_000;

export interface Workspace {
  /** Where a test puts its own inputs. */
  inputs: string;
  /** The converter's tempDir: must hold nothing after a conversion, failed or not. */
  temp: string;
  /** Where outputs go. */
  outputs: string;
}

const created: string[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export async function workspace(): Promise<Workspace> {
  const root = await mkdtemp(join(tmpdir(), 'fileconv-sharp-'));
  created.push(root);
  const ws = { inputs: join(root, 'in'), temp: join(root, 'tmp'), outputs: join(root, 'out') };
  await Promise.all(Object.values(ws).map((dir) => mkdir(dir)));
  return ws;
}

export interface ContextOverrides extends Partial<ConvertContext> {
  progress?: number[];
}

export function context(
  ws: Workspace,
  from: string,
  to: string,
  overrides: ContextOverrides = {},
): ConvertContext {
  const progress = overrides.progress ?? [];
  return {
    inputPath: fixture(`fixture.${from}`),
    outputPath: join(ws.outputs, `out.${to}`),
    from,
    to,
    options: {},
    tempDir: ws.temp,
    signal: new AbortController().signal,
    onProgress: (fraction) => progress.push(fraction),
    limits: { maxPixels: MAX_PIXELS },
    ...overrides,
  };
}

/** Awaits a rejection and checks it is a FileconvError with `code`; returns it. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<FileconvError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}, but the conversion succeeded`).toBeInstanceOf(FileconvError);
  expect((error as FileconvError).code, (error as Error).message).toBe(code);
  return error as FileconvError;
}

/** Asserts the converter left nothing behind: no scratch file, no (partial) output. */
export async function expectNoLeftovers(ws: Workspace): Promise<void> {
  expect(await readdir(ws.temp)).toEqual([]);
  expect(await readdir(ws.outputs)).toEqual([]);
}

export interface OutputDescription {
  /** sharp's format name, or 'bmp' / 'ico' (which sharp cannot read). */
  format: string | undefined;
  compression?: string | undefined;
  width: number | undefined;
  height: number | undefined;
  pages: number;
  /** BMP: bits per pixel. */
  bitsPerPixel?: number;
  /** ICO: each entry as 'WxH kind', in file order. */
  entries?: string[];
}

/** Decodes an output file's headers: ICO by its largest entry, BMP and the rest by their header. */
export async function describeOutput(path: string): Promise<OutputDescription> {
  const bytes = await readFile(path);
  if (bytes.toString('latin1', 0, 2) === 'BM') {
    const layout = parseBmp(bytes);
    const { width, height, bitsPerPixel } = layout;
    return { format: 'bmp', width, height, pages: 1, bitsPerPixel };
  }
  if (bytes.readUInt32BE(0) === 0x00000100) {
    const entries = readIcoEntries(bytes);
    const largest = entries.reduce((a, b) => (b.width > a.width ? b : a));
    return {
      format: 'ico',
      width: largest.width,
      height: largest.height,
      pages: 1,
      entries: entries.map((e) => `${e.width}x${e.height} ${e.kind}`),
    };
  }
  const meta = await sharp(bytes, { animated: true }).metadata();
  return {
    format: meta.format,
    compression: meta.compression,
    width: meta.width,
    height: meta.pageHeight ?? meta.height,
    pages: meta.pages ?? 1,
  };
}
