/**
 * `fileconv convert` over many files in one process: one engine for the whole run, so the
 * LibreOffice pool, Chromium and the isolated engines start once and stay warm, with --jobs
 * conversions at a time. One line per file and a summary on stderr, with --json one object per
 * file on stdout; a failed file fails the run (exit 1) once the others are done.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { createConverter } from '../../src/engine/file-converter.js';
import { lazyDefaultConverters } from '../../src/preset/converter-index.js';
import type { FoundInput } from '../support/input-expansion.js';
import { fileIdentity } from '../support/output-guard.js';
import {
  type ConversionItem,
  itemOf,
  makeOutputFolders,
  type OutputSpec,
  STDIO,
} from '../support/output-plan.js';
import { filesBar } from '../support/progress.js';
import { UsageError } from '../support/usage-error.js';
import { convertItem, type ItemOutcome } from './convert-item.js';
import type { ConvertFlags } from './convert-options.js';
import { jsonLineOf, statusLineOf } from './convert-report.js';

interface PlannedItem {
  item: ConversionItem;
  /** A found file whose result would be itself (already in the target format, beside itself). */
  isOwnResult: boolean;
}

/** The items of a run; refuses outputs that cannot take many results and two inputs meeting in one output. */
function planItems(found: readonly FoundInput[], spec: OutputSpec, target: string): PlannedItem[] {
  if (spec.kind === 'file') {
    throw new UsageError(
      `-o ${spec.path} names one file, for ${found.length} inputs: give a folder (-o ${spec.path}/) or a name with {name} (-o "{name}.{ext}").`,
    );
  }
  if (spec.kind === 'stdout') throw new UsageError('stdout (-o -) takes one result, not several.');
  if (found.some((input) => input.path === STDIO))
    throw new UsageError('stdin (-) is one input: give it alone.');
  const planned = found.map((input) => {
    const item = itemOf(spec, input.path, target, input.folder);
    return { item, isOwnResult: input.found && item.output === resolve(input.path) };
  });
  const byOutput = new Map<string, string>();
  for (const { item, isOwnResult } of planned) {
    if (isOwnResult) continue;
    const other = byOutput.get(item.output);
    if (other !== undefined) {
      throw new UsageError(
        `${other} and ${item.input} would both be written to ${item.output}: give an output folder (-o <folder>/).`,
      );
    }
    byOutput.set(item.output, item.input);
  }
  return planned;
}

function jobsOf(flags: ConvertFlags): number {
  const jobs = flags.jobs ?? availableParallelism();
  if (jobs < 1) throw new UsageError(`--jobs: expected 1 or more, got ${jobs}.`);
  return jobs;
}

/** Runs `work` over `items`, `jobs` at a time, calling `done` as each ends. */
async function inParallel<T, R>(
  items: readonly T[],
  jobs: number,
  work: (item: T) => Promise<R>,
  done: (result: R) => void,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      done(await work(item));
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
}

export async function runBatch(
  found: readonly FoundInput[],
  spec: OutputSpec,
  target: string,
  flags: ConvertFlags,
): Promise<void> {
  const planned = planItems(found, spec, target);
  const jobs = jobsOf(flags);
  const identities = await Promise.all(found.map((input) => fileIdentity(input.path)));
  const inputs = new Set(identities.filter((identity) => identity !== undefined));
  await makeOutputFolders(
    spec,
    planned.map(({ item }) => item.output),
  );

  const bar = !flags.quiet && !flags.json && process.stderr.isTTY ? await filesBar() : undefined;
  const counter = bar?.create(planned.length, 0);
  const say = (line: string) => (bar ? bar.log(`${line}\n`) : process.stderr.write(`${line}\n`));
  const counts = { converted: 0, skipped: 0, failed: 0 };
  const report = (outcome: ItemOutcome) => {
    counts[outcome.status]++;
    counter?.increment();
    if (flags.json) process.stdout.write(`${JSON.stringify(jsonLineOf(outcome))}\n`);
    if (!flags.json && (!flags.quiet || outcome.status === 'failed')) say(statusLineOf(outcome));
  };

  const started = performance.now();
  const engine = createConverter({ converters: lazyDefaultConverters() });
  try {
    await inParallel(
      planned,
      jobs,
      async ({ item, isOwnResult }): Promise<ItemOutcome> =>
        isOwnResult
          ? { item, status: 'skipped', reason: 'own-result', output: item.output, ms: 0 }
          : convertItem(item, { engine, target, flags, inputs, showProgress: false }),
      report,
    );
  } finally {
    bar?.stop();
    await engine.close();
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  if (!flags.quiet || counts.failed > 0) {
    process.stderr.write(
      `${planned.length} file(s): ${counts.converted} converted, ${counts.skipped} skipped, ${counts.failed} failed in ${seconds} s\n`,
    );
  }
  if (counts.failed > 0) process.exitCode = 1;
}
