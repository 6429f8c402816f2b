/**
 * The two halves of every spreadsheet conversion and the loop joining them: a RowSource reads
 * the input as batches of rows, a RowSink writes them, and pumpRows moves batches from one to the
 * other, waiting for the sink (backpressure), answering an abort between batches and reporting
 * progress. Neither half ever holds more than a batch, which is what keeps memory flat.
 */
import { raceAbort, throwIfAborted } from '../../core/abort.js';
import type { Row } from './cells.js';

export interface RowSource {
  /** The rows, in order, a batch at a time. Blank rows inside the data are []. */
  readonly batches: AsyncIterator<Row[]>;
  /** How much of the input has been read, in [0, 1] (an estimate, not always monotonic). */
  progress(): number;
  /** The sheet's name once known (HTML title). */
  title(): string | undefined;
  /** Releases files after a failure or abort. Never throws; may finish in the background. */
  dispose(): void;
}

export interface RowSink {
  /** Writes rows; resolves when the sink can take more. */
  write(rows: readonly Row[]): Promise<void>;
  /** Completes the file; resolves once it is whole on disk and closed. */
  end(): Promise<void>;
  /** Gives up after a failure: closes the file without completing it. Never throws. */
  abort(): Promise<void>;
}

/** Progress is reported in steps of at least this much, so 100,000 rows do not mean 100,000 calls. */
const PROGRESS_STEP = 0.01;
/** The share of the progress bar reading and writing rows take; completing the file is the rest. */
const ROWS_SHARE = 0.95;

/**
 * Moves every batch from `source` into `sink`. Waiting on the source races the abort signal:
 * exceljs can spend seconds inside one step (it copies a worksheet to disk before the shared
 * strings it needs arrive), and an abort must not wait for that.
 */
export async function pumpRows(
  source: RowSource,
  sink: RowSink,
  signal: AbortSignal,
  onProgress: (fraction: number) => void,
): Promise<void> {
  let reported = 0;
  for (;;) {
    const step = await raceAbort(source.batches.next(), signal);
    if (step.done) return;
    await sink.write(step.value);
    throwIfAborted(signal);
    const fraction = Math.min(1, source.progress()) * ROWS_SHARE;
    if (fraction >= reported + PROGRESS_STEP) {
      reported = fraction;
      onProgress(fraction);
    }
  }
}
