/**
 * One soak client: it picks an input, runs it through Flow A (presigned upload, create, poll,
 * download) or Flow B (multipart upload, convert, download), and starts over until told to stop.
 * Keyed clients convert good files on their own API key; bad files go in anonymously from an
 * address of their own (X-Forwarded-For; the service trusts loopback proxies), as strangers'
 * uploads do. A few attempts leave mid-upload or never come back for their result.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ERROR_CODES } from '../src/core/errors.js';
import { createHttpClient, jobIdOf, leaveMidUpload, RETRIED_STATUSES } from './http.js';
import { pickInput, resultProblem, type SoakInput } from './inputs.js';
import type { AckedJob, Attempt, Ledger } from './ledger.js';

export interface ClientContext {
  name: string;
  urls: readonly string[];
  apiKey: string;
  inputs: readonly SoakInput[];
  ledger: Ledger;
  /** Starts no new attempt once this is true. */
  stopping(): boolean;
  random?: () => number;
}

const TERMINAL = new Set(['completed', 'failed', 'canceled']);
const JOB_DEADLINE_MS = 10 * 60_000;

let anonymous = 0;
/** A fresh address for each anonymous attempt, so the Free tier's per-IP limits never run out. */
function nextAnonymousAddress(): string {
  anonymous += 1;
  return `10.${(anonymous >> 16) & 255}.${(anonymous >> 8) & 255}.${anonymous & 255}`;
}

function multipartBody(input: SoakInput): { boundary: string; body: Buffer } {
  const boundary = `soak${randomUUID().replaceAll('-', '')}`;
  const head = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${input.fileName}"\r\n` +
      `content-type: ${input.contentType}\r\n\r\n`,
  );
  return { boundary, body: Buffer.concat([head, input.bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]) };
}

export async function runClient(context: ClientContext): Promise<void> {
  const random = context.random ?? Math.random;
  let turn = 0;
  while (!context.stopping()) {
    turn += 1;
    const input = pickInput(context.inputs, random);
    const roll = random();
    const behaviour = roll < 0.04 ? 'leave-mid-upload' : roll < 0.08 ? 'never-download' : 'normal';
    const flow = random() < 0.5 ? 'A' : 'B';
    const base = context.urls[turn % context.urls.length]!;
    await runAttempt(context, base, input, flow, behaviour);
  }
}

async function runAttempt(
  context: ClientContext,
  base: string,
  input: SoakInput,
  flow: 'A' | 'B',
  behaviour: Attempt['behaviour'],
): Promise<void> {
  const headers: Record<string, string> = input.bad
    ? { 'x-forwarded-for': nextAnonymousAddress() }
    : { authorization: `Bearer ${context.apiKey}` };
  const client = input.bad ? `${context.name}/anonymous` : context.name;
  const http = createHttpClient({
    headers,
    retryForMs: 120_000,
    onServerError: (record) => context.ledger.serverErrors.push(record),
  });
  const attempt: Attempt = {
    client,
    kind: input.kind,
    label: input.label,
    flow,
    bad: input.bad,
    behaviour,
    startedAt: Date.now(),
    endedAt: 0,
    outcome: 'broken',
    status: null,
    code: null,
    retries: 0,
    uncertainCreates: 0,
  };
  const end = (outcome: Attempt['outcome'], status: number | null, code: string | null, problem?: string) => {
    Object.assign(attempt, { outcome, status, code, endedAt: Date.now() }, problem ? { problem } : {});
  };
  const ack = (jobId: string): AckedJob => {
    const job: AckedJob = { jobId, client, headers, bad: input.bad, final: null };
    context.ledger.jobs.set(jobId, job);
    return job;
  };
  try {
    const run: AttemptRun = { http, base, input, behaviour, attempt, end, ack };
    await (flow === 'A' ? flowA(run) : flowB(run));
  } catch (error) {
    end('broken', null, null, (error as Error).message);
  }
  context.ledger.attempts.push(attempt);
}

type Http = ReturnType<typeof createHttpClient>;

function forwardedOnly(headers: Record<string, string>): Record<string, string> {
  const address = headers['x-forwarded-for'];
  return address ? { 'x-forwarded-for': address } : {};
}

/** error.message of an error answer, for the report. */
function messageOf(answer: { json?: Record<string, unknown> | null; body: Buffer }): string {
  const error = answer.json?.error as { message?: unknown } | undefined;
  return typeof error?.message === 'string' ? error.message : answer.body.toString('utf8').slice(0, 200);
}
type End = (
  outcome: Attempt['outcome'],
  status: number | null,
  code: string | null,
  problem?: string,
) => void;

/** One attempt's tools: its client, the node it talks to, what it sends, and how it ends. */
interface AttemptRun {
  http: Http;
  base: string;
  input: SoakInput;
  behaviour: Attempt['behaviour'];
  attempt: Attempt;
  end: End;
  /** Records a job the service acknowledged. */
  ack: (jobId: string) => AckedJob;
}

async function flowA({ http, base, input, behaviour, attempt, end, ack }: AttemptRun): Promise<void> {
  const json = { 'content-type': 'application/json' };
  const grant = await http.call(`${base}/api/files/get-upload-url`, {
    method: 'POST',
    headers: { ...json, 'idempotency-key': randomUUID() },
    body: JSON.stringify({
      fileName: input.fileName,
      fileSize: input.bytes.length,
      contentType: input.contentType,
    }),
  });
  attempt.retries += grant.retries;
  if (grant.status !== 200) return end('refused', grant.status, grant.code, messageOf(grant));
  const { uploadUrl, fileKey } = grant.json as { uploadUrl: string; fileKey: string };
  if (behaviour === 'leave-mid-upload') {
    const half = input.bytes.subarray(0, Math.ceil(input.bytes.length / 2));
    await leaveMidUpload(uploadUrl, 'PUT', { 'content-type': input.contentType }, half, input.bytes.length);
    return end('abandoned', null, null);
  }
  const put = await fetchRetrying(uploadUrl, {
    method: 'PUT',
    // The presigned URL is its own authority; an anonymous client still comes from its own address.
    headers: { 'content-type': input.contentType, ...forwardedOnly(http.headers) },
    body: input.bytes,
  });
  attempt.retries += put.retries;
  if (put.status !== 200)
    return end('refused', put.status, put.code, put.body.toString('utf8').slice(0, 200));
  const created = await http.call(`${base}/api/jobs/create`, {
    method: 'POST',
    headers: { ...json, 'idempotency-key': randomUUID() },
    body: JSON.stringify({
      fileKey,
      sourceFormat: input.sourceFormat,
      targetFormat: input.targetFormat,
      fileSize: input.bytes.length,
    }),
  });
  attempt.retries += created.retries;
  attempt.uncertainCreates += created.retries;
  if (created.status !== 200) return end('refused', created.status, created.code, messageOf(created));
  const job = ack((created.json as { jobId: string }).jobId);
  if (behaviour === 'never-download') return end('unwatched', 200, null);
  const view = await pollJob(http, base, job);
  if (!view) return end('broken', null, null, 'the job did not end within 10 minutes');
  if (view.status !== 'completed') return end('failed', view.httpStatus, view.code, view.message);
  await downloadAndCheck(view.downloadUrl!, input, end, {});
}

async function flowB({ http, base, input, behaviour, end, attempt, ack }: AttemptRun): Promise<void> {
  const { boundary, body } = multipartBody(input);
  const formType = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if (behaviour === 'leave-mid-upload') {
    const half = body.subarray(0, Math.ceil(body.length / 2));
    await leaveMidUpload(`${base}/api/upload`, 'POST', { ...http.headers, ...formType }, half, body.length);
    return end('abandoned', null, null);
  }
  const upload = await http.call(`${base}/api/upload`, {
    method: 'POST',
    headers: { ...formType, 'idempotency-key': randomUUID() },
    body,
  });
  attempt.retries += upload.retries;
  if (upload.status !== 200) return end('refused', upload.status, upload.code, messageOf(upload));
  const { fileId, fileName } = upload.json as { fileId: string; fileName: string };
  const converted = await http.call(
    `${base}/api/convert`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ fileId, fileName, targetFormat: input.targetFormat }),
    },
    // A 503 that names its job: the job exists, so poll it rather than convert (and pay) twice.
    (answer) => jobIdOf(answer) !== undefined,
  );
  attempt.retries += converted.retries;
  attempt.uncertainCreates += converted.retries;
  if (converted.status !== 200) {
    const jobId = jobIdOf(converted);
    if (jobId === undefined) return end('refused', converted.status, converted.code, messageOf(converted));
    const job = ack(jobId);
    if (converted.status < 500 || !RETRIED_STATUSES.has(converted.status)) {
      // The job itself failed: its end is known already.
      job.final = { status: 'failed', code: converted.code };
      return end('failed', converted.status, converted.code, messageOf(converted));
    }
    if (behaviour === 'never-download') return end('unwatched', converted.status, converted.code);
    const view = await pollJob(http, base, job);
    if (!view) return end('broken', null, null, 'the job did not end within 10 minutes');
    if (view.status !== 'completed') return end('failed', view.httpStatus, view.code, view.message);
    return downloadAndCheck(`${base}/api/download?id=${encodeURIComponent(jobId)}`, input, end, http.headers);
  }
  const { downloadId } = converted.json as { downloadId: string };
  ack(downloadId).final = { status: 'completed', code: null };
  if (behaviour === 'never-download') return end('unwatched', 200, null);
  await downloadAndCheck(
    `${base}/api/download?id=${encodeURIComponent(downloadId)}`,
    input,
    end,
    http.headers,
  );
}

interface JobOutcome {
  status: string;
  code: string | null;
  message?: string;
  httpStatus: number | null;
  downloadUrl?: string;
}

/** Polls GET /api/jobs/:id as a client does (0.3 s, then slower), until the job ends; null past the deadline. */
export async function pollJob(
  http: Http,
  base: string,
  job: AckedJob,
  deadline = Date.now() + JOB_DEADLINE_MS,
): Promise<JobOutcome | null> {
  for (let wait = 300; Date.now() < deadline; wait = Math.min(wait * 1.5, 2000)) {
    const answer = await http.call(`${base}/api/jobs/${job.jobId}`);
    if (answer.status !== 200) {
      // The job's own answer is an error (404: it is lost): that is its end as far as a client can tell.
      job.final = { status: 'failed', code: answer.code ?? `HTTP ${answer.status}` };
      return { status: 'lost', code: answer.code, httpStatus: answer.status };
    }
    const view = answer.json as {
      status: string;
      downloadUrl?: string;
      error?: { code?: string; message?: string } | null;
    };
    if (TERMINAL.has(view.status)) {
      const code = view.error?.code ?? null;
      job.final = { status: view.status as 'completed' | 'failed' | 'canceled', code };
      return {
        status: view.status,
        code,
        httpStatus: code ? statusOfCode(code) : 200,
        ...(view.error?.message ? { message: view.error.message } : {}),
        ...(view.downloadUrl ? { downloadUrl: view.downloadUrl } : {}),
      };
    }
    await sleep(wait);
  }
  return null;
}

async function downloadAndCheck(
  url: string,
  input: SoakInput,
  end: End,
  headers: Record<string, string>,
): Promise<void> {
  const result = await fetchRetrying(url, { headers });
  if (result.status !== 200) return end('broken', result.status, result.code, 'the result did not download');
  const problem = await resultProblem(result.body, input.targetFormat, input.mustContain);
  return problem ? end('broken', 200, null, problem) : end('completed', 200, null);
}

/** A plain fetch (presigned URLs, downloads), retried on 503 and dropped connections for up to a minute. */
async function fetchRetrying(
  url: string,
  init: RequestInit,
): Promise<{ status: number; body: Buffer; code: string | null; retries: number }> {
  const deadline = Date.now() + 60_000;
  for (let retries = 0; ; retries++) {
    try {
      const response = await fetch(url, init);
      const body = Buffer.from(await response.arrayBuffer());
      if (response.status === 503 && Date.now() < deadline) {
        await sleep(1000);
        continue;
      }
      let code: string | null = null;
      if (response.status !== 200) {
        code = /"code":"([A-Z_]+)"/.exec(body.toString('utf8'))?.[1] ?? null;
      }
      return { status: response.status, body, code, retries };
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(1000);
    }
  }
}

/** The HTTP status fileconv gives an error code (500 for one it does not know). */
export function statusOfCode(code: string): number {
  return (ERROR_CODES as Record<string, number>)[code] ?? 500;
}
