/** Shared by the print and vector converter tests: which engines are here, and reading outputs back. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findTool } from '../../src/kit/command-tools.js';
import type { Workspace } from './converter-harness.js';

export { pdfInfo, pdfText, run } from './chromium-helpers.js';

export const GS = (await findTool('gs')) !== undefined;
export const RSVG = (await findTool('rsvg-convert')) !== undefined;
export const PDFTOCAIRO = (await findTool('pdftocairo')) !== undefined;

/** Writes `text` (or bytes) as a test input named `name`; returns its path. */
export async function input(ws: Workspace, name: string, content: string | Uint8Array): Promise<string> {
  const path = join(ws.inputs, name);
  await writeFile(path, content);
  return path;
}

export const readText = (path: string) => readFile(path, 'latin1');
