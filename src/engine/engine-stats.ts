/**
 * Engine.stats(): what this process is doing right now, for metrics read at every scrape. The
 * queue's depth, the jobs converting here and each converter's own stats(); no job store reads
 * and no engine checks, so a scrape every few seconds costs one Queue.size call.
 */

import type { ConverterStats, Queue } from '../core/ports/index.js';
import type { ConversionContext } from './conversion-context.js';

/** What the stats are read from: the converters, the queue (if any) and this process's jobs. */
export interface StatsSources {
  conversion: ConversionContext;
  queue?: Queue | undefined;
  /** Jobs this process is converting now. */
  processing: number;
  onError(error: unknown, context: string): void;
}

export interface EngineStats {
  /**
   * Job ids waiting in the queue, as the queue counts them (a shared queue gives every process of
   * a deployment the same number). Undefined without a queue, when the queue cannot count
   * (Queue.size is optional), or when it did not answer in time.
   */
  queued: number | undefined;
  /** Jobs this process is converting now: 0 on an API-only node, at most `concurrency`. */
  processing: number;
  /** Converter.stats() of each converter that reports any, by converter name. */
  converters: Record<string, ConverterStats>;
}

/**
 * How long the queue may take to count, ms. A queue that is away (Redis down) leaves the depth
 * unknown rather than holding up or failing the report: metrics are wanted most during an outage,
 * and Prometheus gives up on a whole scrape after 10 s by default.
 */
const QUEUE_SIZE_DEADLINE_MS = 2000;

export async function collectStats(sources: StatsSources): Promise<EngineStats> {
  const converters: Record<string, ConverterStats> = {};
  // Only the converters loaded: a scrape loads no engine.
  for (const converter of sources.conversion.converters.loaded()) {
    try {
      const reported = converter.stats?.();
      if (reported) converters[converter.name] = reported;
    } catch (error) {
      // A converter's broken hook costs its own numbers, not the whole report.
      sources.onError(error, `stats of ${converter.name}`);
    }
  }
  return { queued: await queueSize(sources.queue), processing: sources.processing, converters };
}

async function queueSize(queue: Queue | undefined): Promise<number | undefined> {
  if (!queue?.size) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), QUEUE_SIZE_DEADLINE_MS);
  });
  try {
    return await Promise.race([queue.size().catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
