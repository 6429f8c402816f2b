/**
 * Progress bars on stderr, with the time left; cli-progress is loaded only when a terminal shows
 * one (17 modules), so a script's run never pays for it.
 */
import type { MultiBar, SingleBar } from 'cli-progress';

/** One conversion's bar: percent done, time left, time spent. */
export async function conversionBar(label: string): Promise<SingleBar> {
  const { default: cliProgress } = await import('cli-progress');
  return new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | ETA {eta_formatted} | {duration_formatted}`,
      stream: process.stderr,
      // The ETA over the last few updates, not the whole run: a conversion's pace changes.
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
}

/** A run of many files: one bar over the files, with lines printed above it. */
export async function filesBar(): Promise<MultiBar> {
  const { default: cliProgress } = await import('cli-progress');
  return new cliProgress.MultiBar(
    {
      format: 'files [{bar}] {value}/{total} | ETA {eta_formatted} | {duration_formatted}',
      stream: process.stderr,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
}
