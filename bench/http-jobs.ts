/**
 * Job polling: GET /api/jobs/{id} requests per second on the fileconv server against a bare
 * Express route answering the same JSON. One completed job is made first (upload + convert of
 * the PNG fixture); then a bounded load generator (node:http, keep-alive, BENCH_JOBS_REQUESTS
 * requests, default 2000, 16 in flight) hits each server in turn. Servers run in child
 * processes, so the load generator does not share their event loop. The fileconv route reads
 * the job from the job store and signs a download URL per request: the SQLite job store
 * (`fileconv serve`'s default) is the main number, then the memory and fs job stores.
 */
import { readFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type ChildServer, hammer, multipartBody, sendJson, startChildServer } from './http-client.js';
import { compare } from './stats.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/fixture.png', import.meta.url));
const CONCURRENCY = 16;

/** Uploads and converts the fixture on `server`; returns the completed job's id. */
async function completedJob(server: ChildServer): Promise<string> {
  const upload = multipartBody('fixture.png', 'image/png', await readFile(FIXTURE));
  const file = await sendJson<{ fileId: string; fileName: string }>(`${server.url}/api/upload`, {
    method: 'POST',
    headers: { 'content-type': upload.contentType, 'content-length': upload.body.length },
    body: upload.body,
  });
  const body = JSON.stringify({ fileId: file.fileId, fileName: file.fileName, targetFormat: 'webp' });
  const job = await sendJson<{ downloadId: string }>(`${server.url}/api/convert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    body,
  });
  return job.downloadId;
}

async function runOne(
  rounds: number,
  requests: number,
  jobs: 'memory' | 'fs' | 'sqlite',
  label: string,
): Promise<void> {
  const fileconv = await startChildServer({ mode: 'fileconv', storage: 'fs', jobs });
  let bare: ChildServer | undefined;
  const agents = [1, 2].map(() => new Agent({ keepAlive: true, maxSockets: CONCURRENCY }));
  try {
    const jobId = await completedJob(fileconv);
    const jobUrl = `${fileconv.url}/api/jobs/${jobId}`;
    const view = await sendJson<{ status: string }>(jobUrl);
    if (view.status !== 'completed') throw new Error(`job is ${view.status}, not completed`);
    bare = await startChildServer({ mode: 'express-json', json: view });
    const bareUrl = `${bare.url}/api/jobs/${jobId}`;
    const [bareCpu, fileconvCpu] = await Promise.all([bare.cpu(), fileconv.cpu()]);
    const result = await compare(
      rounds,
      () => hammer(bareUrl, requests, CONCURRENCY, agents[0]!),
      () => hammer(jobUrl, requests, CONCURRENCY, agents[1]!),
    );
    // Server CPU per request (the child's own user + system time; includes its 50 ms RSS sampler).
    const served = (rounds + 1) * requests;
    const spent = (after: { user: number; system: number }, before: { user: number; system: number }) =>
      after.user + after.system - before.user - before.system;
    const bareUs = spent(await bare.cpu(), bareCpu) / served;
    const fileconvUs = spent(await fileconv.cpu(), fileconvCpu) / served;
    const perSecond = (ms: number) => (requests / (ms / 1000)).toFixed(0).padStart(6);
    console.log(
      `${label.padEnd(34)} express: ${perSecond(result.baselineMs)} req/s   fileconv: ${perSecond(result.candidateMs)} req/s   throughput ratio: ${result.ratio.toFixed(3)}`,
    );
    console.log(
      `${''.padEnd(34)} server CPU per request: express ${bareUs.toFixed(0)} µs, fileconv ${fileconvUs.toFixed(0)} µs`,
    );
  } finally {
    for (const agent of agents) agent.destroy();
    await Promise.all([fileconv.stop(), bare?.stop()]);
  }
}

export async function benchHttpJobs(rounds: number): Promise<void> {
  const requests = Number(process.env.BENCH_JOBS_REQUESTS ?? 2000);
  console.log(
    `GET /api/jobs/{id}, completed job, ${requests} requests, ${CONCURRENCY} in flight, keep-alive`,
  );
  await runOne(rounds, requests, 'sqlite', 'GET job (sqlite: the default)');
  await runOne(rounds, requests, 'memory', 'GET job (memory job store)');
  if (process.env.BENCH_JOBS_FS !== '0') await runOne(rounds, requests, 'fs', 'GET job (fs job store)');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHttpJobs(Number(process.env.BENCH_ROUNDS ?? 7));
}
