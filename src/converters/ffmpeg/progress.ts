/**
 * Reads ffmpeg's machine-readable progress (`-progress pipe:1`): blocks of `key=value` lines, each
 * ending with `progress=continue`, the last with `progress=end`. The position comes from
 * `out_time_us` (ffmpeg 5.1 also prints `out_time_ms`, which despite its name is microseconds
 * too); the fraction is that position over the expected output duration.
 */

export interface ProgressEvents {
  /** A fraction in [0, 1): 1 is reserved for the end, when the output is complete. */
  onFraction?: (fraction: number) => void;
  /** ffmpeg wrote `progress=end`: the output is finalised and the process is about to exit. */
  onEnd?: () => void;
}

/** Longest line kept while waiting for its end: progress lines are short, anything longer is noise. */
const MAX_LINE = 4096;

export class ProgressParser {
  private pending = '';
  private lastFraction = -1;

  constructor(
    private readonly durationSeconds: number | undefined,
    private readonly events: ProgressEvents,
  ) {}

  /** Feeds a chunk of ffmpeg's progress output (any split, any number of lines). */
  push(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = (lines.pop() ?? '').slice(-MAX_LINE);
    for (const line of lines) this.line(line.trim());
  }

  private line(line: string): void {
    const equals = line.indexOf('=');
    if (equals < 0) return;
    const key = line.slice(0, equals);
    const value = line.slice(equals + 1);
    if (key === 'out_time_us') this.position(Number(value) / 1e6);
    else if (key === 'progress' && value === 'end') this.events.onEnd?.();
  }

  private position(seconds: number): void {
    const duration = this.durationSeconds;
    // 'N/A' before the first frame; a negative time at the start of some inputs.
    if (!Number.isFinite(seconds) || seconds < 0 || !duration || duration <= 0) return;
    const fraction = Math.min(seconds / duration, 0.99);
    // Only forward, and only in visible steps: the job record is written on every report.
    if (fraction - this.lastFraction < 0.01) return;
    this.lastFraction = fraction;
    this.events.onFraction?.(fraction);
  }
}
