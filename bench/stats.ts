/** Small helpers shared by the benchmarks: medians and a fixed-width report. */

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Times `run` once, in milliseconds. */
export async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** Runs the contenders in turn `rounds` times after one warm-up each; each one's median in ms. */
export async function alternate(
  rounds: number,
  contenders: readonly (() => Promise<unknown>)[],
): Promise<number[]> {
  for (const contender of contenders) await contender();
  const times = contenders.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, contender] of contenders.entries()) times[i]!.push(await timed(contender));
  }
  return times.map(median);
}

/**
 * Runs baseline and candidate alternately `rounds` times (after one warm-up each), so drift in
 * the machine's load hits both alike, and returns the medians and throughput ratio.
 */
export async function compare(
  rounds: number,
  baseline: () => Promise<unknown>,
  candidate: () => Promise<unknown>,
): Promise<{ baselineMs: number; candidateMs: number; ratio: number }> {
  await baseline();
  await candidate();
  const baselineTimes: number[] = [];
  const candidateTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    baselineTimes.push(await timed(baseline));
    candidateTimes.push(await timed(candidate));
  }
  const baselineMs = median(baselineTimes);
  const candidateMs = median(candidateTimes);
  // Throughput ratio: candidate conversions per second over baseline conversions per second.
  return { baselineMs, candidateMs, ratio: baselineMs / candidateMs };
}

export function report(
  name: string,
  result: { baselineMs: number; candidateMs: number; ratio: number },
  baselineName: string,
): void {
  console.log(
    `${name.padEnd(34)} ${baselineName}: ${result.baselineMs.toFixed(0).padStart(6)} ms   fileconv: ${result.candidateMs
      .toFixed(0)
      .padStart(6)} ms   throughput ratio: ${result.ratio.toFixed(3)}`,
  );
}

/** Ratios measured in this run against a target of issue 28, printed together at the end. */
const targets: { name: string; ratio: number; target: number }[] = [];

/** Records `ratio` for the summary `printTargets` prints, beside the `target` it is held to. */
export function recordTarget(name: string, ratio: number, target: number): void {
  targets.push({ name, ratio, target });
}

/** One line per target ratio measured in this run: the ratio, the target, whether it holds. */
export function printTargets(): void {
  if (targets.length === 0) return;
  console.log('\nTarget ratios (fileconv throughput / the alternative, medians of alternating rounds):');
  for (const { name, ratio, target } of targets)
    console.log(
      `  ${name.padEnd(58)} ratio ${ratio.toFixed(3)}  target >= ${target.toFixed(2)}  ${ratio >= target ? 'met' : 'NOT met'}`,
    );
}
