/**
 * How a soak client talks to the service, as a well-behaved real client does: it waits as told
 * by Retry-After (429, 503, 507) and tries again, sends an Idempotency-Key with each creating
 * POST so a retry can never create a second job, and notes every 5xx answer (whether it said
 * when to come back) for the end checks.
 */
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ServerErrorRecord {
  at: number;
  method: string;
  path: string;
  status: number;
  code: string;
  retryAfter: boolean;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The body as JSON when it is JSON, else null. */
  json: Record<string, unknown> | null;
  /** error.code of an error answer. */
  code: string | null;
}

export interface HttpClientOptions {
  /** Sent with every request: a key's Authorization, or X-Forwarded-For for an anonymous one. */
  headers: Record<string, string>;
  /** Collects every 5xx answer. */
  onServerError(record: ServerErrorRecord): void;
  /** How long one call may keep retrying a 429/503/507 or a dropped connection. */
  retryForMs: number;
}

/** Answers that say "come back later" (with Retry-After). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503, 507]);
const RETRIED_CODES = new Set(['IDEMPOTENCY_KEY_IN_USE', 'UPLOAD_LOCKED']);

async function answerOf(response: Response): Promise<Answer> {
  const body = Buffer.from(await response.arrayBuffer());
  let json: Record<string, unknown> | null = null;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try {
      json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      json = null;
    }
  }
  const error = json?.error as { code?: unknown } | undefined;
  return {
    status: response.status,
    headers: response.headers,
    body,
    json,
    code: typeof error?.code === 'string' ? error.code : null,
  };
}

/** details.jobId of an error answer: the job the failed request created anyway. */
export function jobIdOf(answer: Answer): string | undefined {
  const details = (answer.json?.error as { details?: { jobId?: unknown } } | undefined)?.details;
  return typeof details?.jobId === 'string' ? details.jobId : undefined;
}

export function createHttpClient(options: HttpClientOptions) {
  /** One call, retried as a real client would; `init.body` must be replayable (a Buffer, a string or FormData). */
  async function call(
    url: string,
    init: RequestInit = {},
    /** An answer to take as it is, even one that says to retry (a 503 naming the job it created). */
    final: (answer: Answer) => boolean = () => false,
  ): Promise<Answer & { retries: number }> {
    const deadline = Date.now() + options.retryForMs;
    let retries = 0;
    for (;;) {
      let answer: Answer;
      try {
        const response = await fetch(url, {
          ...init,
          headers: { ...options.headers, ...(init.headers as Record<string, string> | undefined) },
        });
        answer = await answerOf(response);
      } catch (error) {
        // Dropped or refused connection: a fault of the network or a node; try again shortly.
        if (Date.now() > deadline) throw error;
        retries += 1;
        await sleep(1000);
        continue;
      }
      if (answer.status >= 500) {
        options.onServerError({
          at: Date.now(),
          method: init.method ?? 'GET',
          path: new URL(url).pathname,
          status: answer.status,
          code: answer.code ?? '(none)',
          retryAfter: answer.headers.has('retry-after'),
        });
      }
      // 409 IDEMPOTENCY_KEY_IN_USE and 423 UPLOAD_LOCKED also say "retry shortly" (Retry-After).
      const retried = RETRIED_STATUSES.has(answer.status) || RETRIED_CODES.has(answer.code ?? '');
      if (!retried || final(answer) || Date.now() > deadline) return { ...answer, retries };
      retries += 1;
      const wait = Number(answer.headers.get('retry-after') ?? 1);
      await sleep(Math.min(Number.isFinite(wait) ? wait : 1, 10) * 1000);
    }
  }
  return { call, headers: options.headers };
}

/**
 * A client that leaves mid-upload: sends the headers and `sent` of `total` body bytes, then
 * drops the connection. Resolves once the socket is gone.
 */
export function leaveMidUpload(
  url: string,
  method: 'PUT' | 'POST',
  headers: Record<string, string>,
  firstBytes: Buffer,
  total: number,
): Promise<void> {
  return new Promise((resolve) => {
    const outgoing = request(url, { method, headers: { ...headers, 'content-length': String(total) } });
    outgoing.on('error', () => resolve());
    outgoing.on('close', () => resolve());
    outgoing.write(firstBytes, () => {
      // Give the server a moment to start on the body, then vanish as a dropped client does.
      setTimeout(() => outgoing.destroy(), 100);
    });
  });
}
