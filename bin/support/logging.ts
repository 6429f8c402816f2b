/**
 * The service's structured log, on pino: one line per answered request (its request id, method,
 * path with URL signatures redacted, status, error code, time, client and the job ids it
 * touched) and one per job event (job id, converter edge, outcome), so a request id leads to
 * its job and the job id to what happened to it. JSON lines by default; readable text when
 * stdout is a terminal (`--log-format pretty|json` decides). Nothing secret is logged:
 * headers are not logged at all, and signature query parameters are redacted by the service.
 */

import type { JobEngine } from '../../src/engine/job-engine.js';
import type { JobLifecycleEvent } from '../../src/engine/job-events.js';
import { installLine } from '../../src/kit/engine-packages.js';
import type { RequestEvent } from '../../src/service/service.js';

export type LogFormat = 'json' | 'pretty';

export interface ServiceLog {
  request(event: RequestEvent): void;
  job(event: JobLifecycleEvent): void;
  error(message: string, error: unknown): void;
  /** A line for the operator (a limit first reached), logged with or without the request lines. */
  notice(message: string): void;
  /** Subscribes to an engine's job events; returns the unsubscribe. */
  watch(engine: Pick<JobEngine, 'onJobEvent'>): () => void;
}

/** `--log-format`, else pretty on a terminal and JSON otherwise. */
export function logFormatOf(flag: string | undefined): LogFormat {
  if (flag === 'json' || flag === 'pretty') return flag;
  if (flag !== undefined) throw new Error(`--log-format must be json or pretty, not "${flag}"`);
  return process.stdout.isTTY ? 'pretty' : 'json';
}

/**
 * pino-pretty, an optional peer dependency: without it the lines stay JSON, and one line says
 * how to get readable ones (an explicit --log-format pretty included: logs are never lost).
 */
const importPretty = () => import('pino-pretty');
type PrettyFactory = Awaited<ReturnType<typeof importPretty>>['default'];

async function loadPretty(): Promise<PrettyFactory | undefined> {
  try {
    return (await importPretty()).default;
  } catch {
    process.stderr.write(
      `fileconv: logging JSON lines; for readable ones on a terminal: ${installLine('pretty logs')}\n`,
    );
    return undefined;
  }
}

export async function createServiceLog(options: {
  format: LogFormat;
  requests: boolean;
}): Promise<ServiceLog> {
  const { pino } = await import('pino');
  const pretty = options.format === 'pretty' ? await loadPretty() : undefined;
  const destination = pretty
    ? pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss' })
    : pino.destination({ sync: false });
  const logger = pino(
    { base: { service: 'fileconv' }, timestamp: pino.stdTimeFunctions.isoTime },
    destination,
  );
  // Flushed on exit so a stop does not lose the last lines.
  process.once('beforeExit', () => logger.flush());

  const log: ServiceLog = {
    request(event) {
      if (!options.requests) return;
      const level = event.status >= 500 ? 'error' : event.status >= 400 ? 'warn' : 'info';
      logger[level](
        {
          reqId: event.requestId,
          method: event.method,
          url: event.url,
          route: event.route,
          status: event.status,
          ...(event.code ? { code: event.code } : {}),
          ms: Math.round(event.durationMs * 10) / 10,
          ip: event.ip,
          owner: event.owner,
          ...(event.jobIds.length > 0 ? { jobIds: event.jobIds } : {}),
        },
        `${event.method} ${event.url} ${event.status}`,
      );
    },
    job({ type, job }) {
      if (type === 'progress') return;
      const level = type === 'failed' ? 'warn' : 'info';
      logger[level](
        {
          jobId: job.id,
          event: type,
          edge: `${job.sourceFormat}>${job.targetFormat}`,
          ...(job.error ? { code: job.error.code, error: job.error.message } : {}),
          ...(type === 'completed' || type === 'failed' ? { cpuMs: job.cpuMs, attempts: job.attempts } : {}),
        },
        `job ${type}`,
      );
    },
    error(message, error) {
      logger.error({ err: error }, message);
    },
    notice(message) {
      logger.warn(message);
    },
    watch: (engine) => engine.onJobEvent((event) => log.job(event)),
  };
  return log;
}
