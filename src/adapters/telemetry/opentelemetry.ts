/**
 * `fileconv/telemetry`: OpenTelemetry spans for requests, job runs and conversion steps, through
 * `@opentelemetry/api` (an optional peer: without it nothing here is loaded, and without an SDK
 * registered by the host the API's tracers do nothing). What a trace shows:
 *
 * - one SERVER span per answered request (`POST /api/convert`), with its route, status, error
 *   code, request id and the ids of the jobs it created or read;
 * - one `fileconv.job` span per run of a job on a worker, active while the job converts, with the
 *   job's edge, attempts and outcome (status ERROR with the error code when it failed);
 * - inside it, one `fileconv.convert` span per conversion step (`sharp png -> webp`).
 *
 * A request and the job it created usually run on different event-loop turns (the queue in
 * between), often on different machines: they are tied by the `fileconv.job.id` attribute both
 * carry, not by parenthood.
 */
import type * as OpenTelemetry from '@opentelemetry/api';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { toFileconvError } from '../../core/errors.js';
import type { Job } from '../../core/jobs/types.js';
import type { Converter, ConverterRegistration, Queue } from '../../core/ports/index.js';
import type { JobEngine } from '../../engine/job-engine.js';

/** What tracing watches of an engine: its job events, and its jobs' records. */
export type TracedEngine = Pick<JobEngine, 'onJobEvent' | 'getJob'>;

import type { RequestEvent } from '../../service/service.js';

type Api = typeof OpenTelemetry;

export interface Tracing {
  /** Records a request's span: pass it as (or call it from) the HTTP service's `onRequest`. */
  onRequest(event: RequestEvent): void;
  /** The queue with a `fileconv.job` span around each job run (ended by `watch` once it settles). */
  traceQueue(queue: Queue): Queue;
  /** The converter with a `fileconv.convert` span around each step. */
  traceConverter<O>(converter: Converter<O>): Converter<O>;
  /** The registration whose converter, once loaded, has a `fileconv.convert` span around each step. */
  traceRegistration<O>(registration: ConverterRegistration<O>): ConverterRegistration<O>;
  /**
   * Ends job spans when their job settles: an in-process worker moves to its next job while the
   * last one's result is still being stored, so the run's span outlives the queue's handler.
   */
  watch(engine: TracedEngine): () => void;
}

export interface TracingOptions {
  /** The tracer's name. Default 'fileconv'. */
  tracerName?: string;
}

/** Tracing on `@opentelemetry/api` when it is installed, else undefined. */
export async function loadTracing(options: TracingOptions = {}): Promise<Tracing | undefined> {
  // A variable specifier: the optional peer is not a build-time dependency.
  const specifier = '@opentelemetry/api';
  const api = (await import(specifier).catch(() => undefined)) as Api | undefined;
  return api ? createTracing(api, options) : undefined;
}

function jobAttributes(job: Job): Attributes {
  return {
    'fileconv.job.id': job.id,
    'fileconv.job.status': job.status,
    'fileconv.job.edge': `${job.sourceFormat}>${job.targetFormat}`,
    'fileconv.job.path': job.path.join('>'),
    'fileconv.job.attempts': job.attempts,
    ...(job.cpuMs === null ? {} : { 'fileconv.job.cpu_ms': job.cpuMs }),
    ...(job.error ? { 'fileconv.error.code': job.error.code } : {}),
  };
}

export function createTracing(api: Api, options: TracingOptions = {}): Tracing {
  const tracer: Tracer = api.trace.getTracer(options.tracerName ?? 'fileconv');
  const { SpanKind, SpanStatusCode } = api;
  /** Job runs whose span is open, by job id. */
  const running = new Map<string, Span>();
  let engine: TracedEngine | undefined;

  function settle(jobId: string, job: Job | undefined, errorCode?: string): void {
    const span = running.get(jobId);
    if (!span) return;
    running.delete(jobId);
    if (job) span.setAttributes(jobAttributes(job));
    const code = errorCode ?? (job?.status === 'failed' ? job.error?.code : undefined);
    if (code) span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    span.end();
  }

  const tracing: Tracing = {
    onRequest(event) {
      const route = event.route ?? 'unmatched';
      const span = tracer.startSpan(`${event.method} ${route}`, {
        kind: SpanKind.SERVER,
        // The event comes once the answer is sent: the span starts when the request did.
        startTime: Date.now() - event.durationMs,
        attributes: {
          'http.request.method': event.method,
          'http.route': route,
          'http.response.status_code': event.status,
          'url.path': event.url,
          'client.address': event.ip,
          'fileconv.request.id': event.requestId,
          ...(event.code ? { 'fileconv.error.code': event.code } : {}),
          ...(event.jobIds.length > 0
            ? { 'fileconv.job.id': event.jobIds.length === 1 ? event.jobIds[0]! : event.jobIds }
            : {}),
        },
      });
      if (event.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: event.code ?? '' });
      span.end();
    },

    traceQueue(queue) {
      const size = queue.size?.bind(queue);
      const hasHandler = queue.hasHandler?.bind(queue);
      return {
        ...(queue.durable === undefined ? {} : { durable: queue.durable }),
        ...(hasHandler ? { hasHandler } : {}),
        enqueue: (jobId, enqueueOptions) => queue.enqueue(jobId, enqueueOptions),
        close: () => queue.close(),
        ...(size ? { size } : {}),
        process(handler, processOptions) {
          queue.process(
            (jobId, delivery) =>
              tracer.startActiveSpan(
                'fileconv.job',
                { kind: SpanKind.CONSUMER, attributes: { 'fileconv.job.id': jobId } },
                async (span) => {
                  running.set(jobId, span);
                  try {
                    await handler(jobId, delivery);
                  } catch (error) {
                    span.recordException(error as Error);
                    settle(jobId, undefined, toFileconvError(error).code);
                    throw error;
                  }
                  // Usually the job's settled event has ended the span already; otherwise (skipped,
                  // requeued, no engine watched, or still storing its result) one read tells.
                  if (!running.has(jobId)) return;
                  const job = await engine?.getJob(jobId).catch(() => undefined);
                  if (job?.status !== 'processing') settle(jobId, job);
                },
              ),
            processOptions,
          );
        },
      };
    },

    watch(watched) {
      engine = watched;
      const unsubscribe = watched.onJobEvent(({ type, job }) => {
        if (type === 'completed' || type === 'failed' || type === 'canceled') settle(job.id, job);
      });
      return () => {
        unsubscribe();
        for (const jobId of [...running.keys()]) settle(jobId, undefined);
      };
    },

    traceConverter(converter) {
      return {
        ...converter,
        convert: (ctx) =>
          tracer.startActiveSpan(
            'fileconv.convert',
            {
              attributes: {
                'fileconv.converter': converter.name,
                'fileconv.step.from': ctx.from,
                'fileconv.step.to': ctx.to,
              },
            },
            async (span) => {
              try {
                const result = await converter.convert(ctx);
                if (result?.cpuMs !== undefined) span.setAttribute('fileconv.step.cpu_ms', result.cpuMs);
                return result;
              } catch (error) {
                const failure = toFileconvError(error);
                span.setAttribute('fileconv.error.code', failure.code);
                span.setStatus({ code: SpanStatusCode.ERROR, message: failure.code });
                throw error;
              } finally {
                span.end();
              }
            },
          ),
      };
    },

    traceRegistration(registration) {
      return { ...registration, load: async () => tracing.traceConverter(await registration.load()) };
    },
  };
  return tracing;
}
