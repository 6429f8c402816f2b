/**
 * One input of `fileconv convert` through an engine the run shares: where its result may go
 * (output-guard.ts), stdin and web pages as work files, the result put in place or streamed to
 * stdout. A failure is returned, not thrown, so a run of many files goes on.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isFileconvError } from '../../src/core/errors.js';
import { extensionOf, urlFileContent } from '../../src/core/formats/index.js';
import { baseName } from '../../src/core/names.js';
import type { ConversionReport } from '../../src/engine/direct.js';
import type { FileConverter } from '../../src/engine/file-converter.js';
import { partialBeside } from '../../src/kit/place-file.js';
import { outputDecision, placeResult } from '../support/output-guard.js';
import { type ConversionItem, isUrlInput, STDIO } from '../support/output-plan.js';
import { conversionBar } from '../support/progress.js';
import { spoolStdin, streamToStdout } from '../support/stdio-files.js';
import { type ConvertFlags, optionsFromFlags } from './convert-options.js';

export type ItemOutcome =
  | { item: ConversionItem; status: 'converted'; output: string; ms: number; report: ConversionReport }
  | {
      item: ConversionItem;
      status: 'skipped';
      /** Its output exists (--skip-existing), or a found file is its own result (convert-batch.ts). */
      reason: 'exists' | 'own-result';
      output: string;
      ms: number;
    }
  | { item: ConversionItem; status: 'failed'; output: string; ms: number; error: unknown };

export interface ItemRun {
  engine: FileConverter;
  target: string;
  flags: ConvertFlags;
  /** The identities of every input of the run (fileIdentity), none of which is written over. */
  inputs: ReadonlySet<string>;
  /** A progress bar for this one conversion (a terminal, one file, not --quiet). */
  showProgress: boolean;
}

export async function convertItem(item: ConversionItem, run: ItemRun): Promise<ItemOutcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    if (item.output !== STDIO && (await outputDecision(item.output, run.inputs, run.flags)) === 'skip') {
      return { item, status: 'skipped', reason: 'exists', output: item.output, ms: ms() };
    }
    const { report, output } = await convertToOutput(item, run);
    return { item, status: 'converted', output, ms: ms(), report };
  } catch (error) {
    return { item, status: 'failed', output: item.output, ms: ms(), error };
  }
}

/** stdin, a URL or stdout need a private folder for their work files; a file in place does not. */
function needsWorkDir(item: ConversionItem): boolean {
  return item.input === STDIO || isUrlInput(item.input) || item.output === STDIO;
}

async function convertToOutput(
  item: ConversionItem,
  run: ItemRun,
): Promise<{ report: ConversionReport; output: string }> {
  const work = needsWorkDir(item) ? await mkdtemp(join(tmpdir(), 'fileconv-cli-')) : undefined;
  const scratch = item.output === STDIO ? join(work ?? '', 'result') : partialBeside(item.output);
  const bar = run.showProgress
    ? await conversionBar(`${item.shown} -> ${item.output === STDIO ? 'stdout' : basename(item.output)}`)
    : undefined;
  try {
    const source = await sourceFile(item, run.flags, work ?? '');
    bar?.start(100, 0);
    const report = await run.engine.convertFile(source.path, scratch, {
      to: run.target,
      from: source.from,
      options: optionsFromFlags(run.flags),
      timeoutMs: run.flags.timeout === undefined ? undefined : run.flags.timeout * 1000,
      onProgress: (fraction) => bar?.update(Math.round(fraction * 100)),
    });
    bar?.update(100);
    bar?.stop();
    if (item.output === STDIO) {
      await streamToStdout(scratch);
      return { report, output: STDIO };
    }
    // Several results (every page of a PDF) come as one zip: a name we chose gets its extension.
    const output =
      report.packaging === 'zip' && !item.named
        ? join(dirname(item.output), `${baseName(basename(item.output))}.zip`)
        : item.output;
    await placeResult(scratch, output, run.inputs, run.flags);
    return { report, output };
  } finally {
    bar?.stop();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
    else await rm(scratch, { force: true });
  }
}

/** The file the engine reads: the input itself, stdin spooled, or a web page's URL file. */
async function sourceFile(
  item: ConversionItem,
  flags: ConvertFlags,
  work: string,
): Promise<{ path: string; from: string | undefined }> {
  if (item.input === STDIO) {
    // The content tells the format (--from when it cannot); the name must not claim one.
    const path = join(work, flags.from === undefined ? 'stdin' : `stdin.${extensionOf(flags.from)}`);
    await spoolStdin(path);
    return { path, from: flags.from };
  }
  if (isUrlInput(item.input)) {
    // The page goes to the engine as a URL file, so the Chromium converter's address rules apply.
    const path = join(work, 'page.url');
    await writeFile(path, urlFileContent(item.input));
    return { path, from: flags.from ?? 'url' };
  }
  return { path: item.input, from: flags.from };
}

/** The stable code of a failure, for lines and --json ('INTERNAL' for anything unexpected). */
export function failureOf(error: unknown): { code: string; message: string } {
  return isFileconvError(error)
    ? { code: error.code, message: error.message }
    : { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}
