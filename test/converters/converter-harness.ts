/**
 * What every converter test needs: fixtures, a per-test workspace (inputs, the converter's temp
 * dir, outputs), a ConvertContext builder, and checks for error codes and leftovers. A test calls
 * its converter directly, with options as a request gives them: it wraps the converter with
 * withOptionsParsed, which parses them first as an engine does (a converter reads them parsed).
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import type { ErrorCode } from '../../src/core/errors.js';
import { FileconvError } from '../../src/core/errors.js';
import type { ConvertContext } from '../../src/core/ports/index.js';

export { withOptionsParsed } from '../../src/testing/parsed-options.js';

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

/** A fresh in/tmp/out triple under the OS temp dir, removed after the test. */
export async function workspace(prefix = 'fileconv-converter-'): Promise<Workspace> {
  const root = await mkdtemp(join(tmpdir(), prefix));
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

/** A standalone HTML document: doctype first, UTF-8 declared, and the given title. */
export function expectHtmlDocument(html: string, title: string): void {
  expect(html).toMatch(/^<!DOCTYPE html>/);
  expect(html).toContain('<meta charset="utf-8">');
  expect(html).toContain(`<title>${title}</title>`);
}

/** Progress reports that start at 0, end at 1 and never go back. */
export function expectProgressRun(progress: readonly number[]): void {
  expect(progress[0]).toBe(0);
  expect(progress.at(-1)).toBe(1);
  expect(progress).toEqual([...progress].sort((a, b) => a - b));
}
