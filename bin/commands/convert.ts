/**
 * `fileconv convert <input> [output]`: one file, a web page's URL or stdin, with a progress bar
 * on a terminal. Every status line goes to stderr, so stdout carries only the result (`-o -`) or
 * the --json report. The input is never written over, an existing output only with --force.
 */
// From the modules themselves, not the package root: `import 'fileconv'` loads the job engine,
// the service's schemas and every port too, which one conversion has no use for.
import { createConverter } from '../../src/engine/file-converter.js';
import { lazyDefaultConverters } from '../../src/preset/converter-index.js';
import { fileIdentity } from '../support/output-guard.js';
import { itemOf, outputSpecOf, STDIO, targetFormatOf } from '../support/output-plan.js';
import { UsageError } from '../support/usage-error.js';
import { convertItem, failureOf, type ItemOutcome } from './convert-item.js';
import type { ConvertFlags } from './convert-options.js';

export async function runConvert(
  input: string,
  positionalOutput: string | undefined,
  flags: ConvertFlags,
): Promise<void> {
  if (flags.force && flags.skipExisting)
    throw new UsageError('--force and --skip-existing contradict each other.');
  const spec = await outputSpecOf(positionalOutput, flags.output);
  if (spec.kind === 'stdout' && flags.json) {
    throw new UsageError('--json prints to stdout, which -o - gives to the result.');
  }
  const target = targetFormatOf(spec, flags.to);
  const item = itemOf(spec, input, target);
  const identity = input === STDIO ? undefined : await fileIdentity(input);
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
    // One file's failure is the command's: one line `fileconv: <message> [CODE]` (cli.ts).
    if (outcome.status === 'failed') throw outcome.error;
    if (flags.json) process.stdout.write(`${JSON.stringify(jsonLineOf(outcome))}\n`);
    else if (!flags.quiet || outcome.status === 'skipped') process.stderr.write(`${statusLineOf(outcome)}\n`);
  } finally {
    // Stops LibreOffice's warm workers, if the conversion started any.
    await engine.close();
  }
}

/** What --json prints for one input: one object a line. */
export function jsonLineOf(outcome: ItemOutcome): Record<string, unknown> {
  const common = {
    input: outcome.item.input,
    output: outcome.output,
    status: outcome.status,
    ms: outcome.ms,
  };
  if (outcome.status === 'converted') return { ...common, ...outcome.report };
  if (outcome.status === 'failed') return { ...common, error: failureOf(outcome.error) };
  return common;
}

/** The line a person reads for one input. */
export function statusLineOf(outcome: ItemOutcome): string {
  const shown = outcome.item.shown;
  const output = outcome.output === STDIO ? 'stdout' : outcome.output;
  switch (outcome.status) {
    case 'converted': {
      const { report } = outcome;
      const seconds = (outcome.ms / 1000).toFixed(2);
      return `${shown}: ${report.path.join(' -> ')}, wrote ${output} (${formatBytes(report.outputSize)}) in ${seconds} s`;
    }
    case 'skipped':
      return `${shown}: skipped, ${output} exists`;
    case 'failed': {
      const { code, message } = failureOf(outcome.error);
      return `${shown}: ${message} [${code}]`;
    }
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
