/**
 * `fileconv convert <inputs...>`: one file, a web page's URL or stdin, with a progress bar on a
 * terminal; several files, folders or globs go to convert-batch.ts. Every status line goes to
 * stderr, so stdout carries only the result (`-o -`) or the --json report. The input is never
 * written over, an existing output only with --force.
 */
import { stat } from 'node:fs/promises';
// From the modules themselves, not the package root: `import 'fileconv'` loads the job engine,
// the service's schemas and every port too, which one conversion has no use for.
import { FileconvError } from '../../src/core/errors.js';
import { createConverter } from '../../src/engine/file-converter.js';
import { lazyDefaultConverters } from '../../src/preset/converter-index.js';
import { isGlob } from '../support/glob-match.js';
import { expandInputs } from '../support/input-expansion.js';
import { fileIdentity } from '../support/output-guard.js';
import { itemOf, makeOutputFolders, outputSpecOf, STDIO, targetFormatOf } from '../support/output-plan.js';
import { UsageError } from '../support/usage-error.js';
import { convertItem } from './convert-item.js';
import type { ConvertFlags } from './convert-options.js';
import { jsonLineOf, statusLineOf } from './convert-report.js';

/**
 * Two words without -o are an input and its output (`convert in.docx out.pdf`), unless one is a
 * glob or the first a folder: those are inputs, as `convert "*.png" "*.jpg" --to webp` means.
 */
async function isInputAndOutput(words: readonly string[], flags: ConvertFlags): Promise<boolean> {
  if (words.length !== 2 || flags.output !== undefined || words.some(isGlob)) return false;
  const first = await stat(words[0] as string).catch(() => undefined);
  return !first?.isDirectory();
}

/**
 * Two words without -o are an input and its output (`convert in.docx out.pdf`); otherwise every
 * word is an input. `convert a.jpg b.jpg --to webp` is thus refused (b.jpg does not name webp)
 * rather than written over.
 */
export async function runConvert(words: readonly string[], flags: ConvertFlags): Promise<void> {
  if (flags.force && flags.skipExisting) {
    throw new UsageError('--force and --skip-existing contradict each other.');
  }
  const positionalOutput = (await isInputAndOutput(words, flags)) ? words[1] : undefined;
  const spec = await outputSpecOf(positionalOutput, flags.output);
  if (spec.kind === 'stdout' && flags.json) {
    throw new UsageError('--json prints to stdout, which -o - gives to the result.');
  }
  const target = targetFormatOf(spec, flags.to);
  const named = positionalOutput === undefined ? words : words.slice(0, 1);
  const found = await expandInputs(named, flags.recursive ?? false);
  const [first] = found;
  if (first === undefined) throw new FileconvError('NOT_FOUND', `No files to convert in ${named.join(' ')}.`);
  if (found.length > 1 || first.found) {
    const { runBatch } = await import('./convert-batch.js');
    await runBatch(found, spec, target, flags);
    return;
  }
  const item = itemOf(spec, first.path, target);
  if (item.output !== STDIO) await makeOutputFolders(spec, [item.output]);
  const identity = first.path === STDIO ? undefined : await fileIdentity(first.path);
  // defaultConverters(), each converter imported only when this conversion needs it.
  const engine = createConverter({ converters: lazyDefaultConverters() });
  try {
    const outcome = await convertItem(item, {
      engine,
      target,
      flags,
      inputs: new Set(identity === undefined ? [] : [identity]),
      showProgress: !flags.quiet && !flags.json && process.stderr.isTTY,
    });
    if (flags.json) process.stdout.write(`${JSON.stringify(jsonLineOf(outcome))}\n`);
    // One file's failure is the command's: one line `fileconv: <message> [CODE]` (cli.ts).
    if (outcome.status === 'failed') throw outcome.error;
    if (!flags.json && (!flags.quiet || outcome.status === 'skipped')) {
      process.stderr.write(`${statusLineOf(outcome)}\n`);
    }
  } finally {
    // Stops LibreOffice's warm workers, if the conversion started any.
    await engine.close();
  }
}
