/**
 * `fileconv serve --log-format json`: one JSON line per request with its request id (taken from
 * X-Request-Id and returned in it), the job ids it touched, and one line per job event; a failed
 * job can be followed from the request that created it to its error code, and no URL signature
 * ever reaches the log.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures, truncated } from '../src/testing/index.js';
import { exited, type ServeProcess, startServeProcess } from './helpers/serve-process.js';

let data: string;
let serve: ServeProcess;

beforeAll(async () => {
  data = await mkdtemp(join(tmpdir(), 'fileconv-logs-'));
  serve = await startServeProcess(['--data', data, '--no-web', '--log-format', 'json']);
});

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  await rm(data, { recursive: true, force: true });
});

interface LogLine {
  reqId?: string;
  jobId?: string;
  jobIds?: string[];
  event?: string;
  code?: string;
  url?: string;
  status?: number;
  msg: string;
}

function logLines(): LogLine[] {
  return serve
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function post(path: string, body: unknown, requestId: string) {
  const response = await fetch(`${serve.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify(body),
  });
  expect(response.headers.get('x-request-id')).toBe(requestId);
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

it('follows a failed job from its request id to its error code, with no signature logged', async () => {
  const png = Buffer.from(truncated(await readFile(fixtures.png!), 0.5));
  const grant = await post(
    '/api/files/get-upload-url',
    { fileName: 'broken.png', fileSize: png.length, contentType: 'image/png' },
    'req-grant-1',
  );
  expect(grant.status).toBe(200);
  const signature = new URL(grant.body.uploadUrl!).searchParams.get('signature')!;
  expect(signature.length).toBeGreaterThan(10);
  const put = await fetch(grant.body.uploadUrl!, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: png,
  });
  expect(put.status).toBe(200);
  const created = await post(
    '/api/jobs/create',
    { fileKey: grant.body.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length },
    'req-create-1',
  );
  expect(created.status).toBe(200);
  const jobId = created.body.jobId!;

  // The job fails (the PNG is cut in half); its line is written once it settles.
  let failed: LogLine | undefined;
  for (let waited = 0; !failed; waited += 100) {
    expect(waited, 'no "failed" job line in the log').toBeLessThan(30_000);
    await sleep(100);
    failed = logLines().find((line) => line.jobId === jobId && line.event === 'failed');
  }
  expect(failed.code).toBe('CORRUPT_INPUT');

  const lines = logLines();
  const creation = lines.find((line) => line.reqId === 'req-create-1');
  expect(creation).toMatchObject({ status: 200, jobIds: [jobId], url: '/api/jobs/create' });
  expect(lines.some((line) => line.jobId === jobId && line.event === 'created')).toBe(true);
  // The signed PUT is logged with its signature redacted, and the signature appears nowhere.
  const upload = lines.find((line) => line.url?.startsWith(`/api/files/${grant.body.fileId}/content`));
  expect(upload?.url).toContain('signature=REDACTED');
  expect(serve.stdout()).not.toContain(signature);
  // Each request got an id of its own when the client sent none.
  const ids = lines.filter((line) => line.reqId !== undefined).map((line) => line.reqId);
  expect(new Set(ids).size).toBe(ids.length);
});
