/** What `fileconv convert` prints for each input: a line for people (stderr), an object for scripts (--json). */

import { STDIO } from '../support/output-plan.js';
import { failureOf, type ItemOutcome } from './convert-item.js';

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
  return { ...common, reason: outcome.reason };
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
      return outcome.reason === 'exists'
        ? `${shown}: skipped, ${output} exists`
        : `${shown}: skipped, its result would be the file itself`;
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
