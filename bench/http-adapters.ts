/**
 * What each HTTP adapter of fileconv costs against the same routes written bare in its
 * framework: node:http (createNodeHandler), Express (createHttpRouter), the fetch handler on
 * @hono/node-server, the fetch handler inside a Hono app, and Fastify (the plugin), each mounted
 * at /files (bench/http-adapters-mounts.ts) against its bare twin (bench/http-adapters-bare.ts).
 * Two more rows isolate the fetch handler's core: the fetch handler against fileconv on plain
 * node:http, and against a bare Hono route.
 *
 * Cases, each the same requests from the same client code against both servers:
 * - health: GET /files/api/health, BENCH_ADAPTERS_REQUESTS requests (default 3000);
 * - Flow B: POST /files/api/upload (multipart, a 2 KiB text file), POST /files/api/convert (to md,
 *   the fake converter, no delay), GET the download; BENCH_ADAPTERS_FLOWS conversions (default 150).
 *   Rates are requests per second (3 per conversion).
 * 16 in flight over keep-alive node:http connections. Servers run in child processes
 * (bench/http-server-child.ts), so the load generator does not share their event loop; rounds
 * alternate baseline and fileconv after a warm-up each; medians. The fileconv service has no
 * `counters`, so no rate limit or quota is counted. Server CPU per request (the child's user +
 * system time) is printed too: on a shared 2-core machine it is the steadier measure of overhead;
 * `client` is the load generator's CPU per request (near 1e6 / req/s, it is what limits the rate).
 * BENCH_ADAPTERS_ONLY=node,express,fetch,hono,fastify,core picks rows, BENCH_ADAPTERS_CASES=health,flow
 * cases (to profile one: BENCH_CHILD_CPU_PROF=<dir> makes every server child write a CPU profile).
 */
import { Agent } from 'node:http';
import type { Framework } from './http-adapters-bare.js';
import {
  type ChildServer,
  type HttpResponse,
  multipartBody,
  type RequestInit,
  send,
  startChildServer,
} from './http-client.js';
import { compare } from './stats.js';

const CONCURRENCY = 16;
/** Response headers every server or framework sets its own way (framing, not content). */
const FRAMING_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

interface ServerSpec {
  mode: 'adapter-fileconv' | 'adapter-bare';
  framework: Framework;
}

interface Row {
  /** BENCH_ADAPTERS_ONLY name. */
  key: Framework | 'core';
  adapter: string;
  baselineName: string;
  baseline: ServerSpec;
  candidate: ServerSpec;
}

const fileconv = (framework: Framework): ServerSpec => ({ mode: 'adapter-fileconv', framework });
const bare = (framework: Framework): ServerSpec => ({ mode: 'adapter-bare', framework });

const ROWS: readonly Row[] = [
  {
    key: 'node',
    adapter: 'node:http',
    baselineName: 'bare node:http',
    baseline: bare('node'),
    candidate: fileconv('node'),
  },
  {
    key: 'express',
    adapter: 'Express',
    baselineName: 'bare Express',
    baseline: bare('express'),
    candidate: fileconv('express'),
  },
  {
    key: 'fetch',
    adapter: 'fetch on node-server',
    baselineName: 'bare fetch fn',
    baseline: bare('fetch'),
    candidate: fileconv('fetch'),
  },
  {
    key: 'hono',
    adapter: 'fetch in Hono app',
    baselineName: 'bare Hono',
    baseline: bare('hono'),
    candidate: fileconv('hono'),
  },
  {
    key: 'fastify',
    adapter: 'Fastify plugin',
    baselineName: 'bare Fastify',
    baseline: bare('fastify'),
    candidate: fileconv('fastify'),
  },
  {
    key: 'core',
    adapter: 'fetch on node-server',
    baselineName: 'fileconv node:http',
    baseline: fileconv('node'),
    candidate: fileconv('fetch'),
  },
  {
    key: 'core',
    adapter: 'fetch on node-server',
    baselineName: 'bare Hono',
    baseline: bare('hono'),
    candidate: fileconv('fetch'),
  },
];

/** The uploaded file: 2 KiB of text lines. */
const TEXT = Buffer.from(
  Array.from(
    { length: 64 },
    (_, line) => `line ${String(line).padStart(2, '0')}: the quick brown fox jumps.\n`,
  )
    .join('')
    .slice(0, 2048),
);
const UPLOAD = multipartBody('note.txt', 'text/plain', TEXT);

/** One server of a row, with the client's keep-alive pool to it. */
interface Target {
  server: ChildServer;
  agent: Agent;
  base: string;
}

async function startTarget(spec: ServerSpec, health: unknown): Promise<Target> {
  const server = await startChildServer({ ...spec, health });
  return {
    server,
    agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
    base: `${server.url}/files/api`,
  };
}

async function ok(url: string, init: RequestInit): Promise<HttpResponse> {
  const res = await send(url, init);
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${res.body}`);
  return res;
}

const health = (target: Target) => ok(`${target.base}/health`, { agent: target.agent });

/** One Flow B conversion; returns the three responses. */
async function convert(target: Target): Promise<HttpResponse[]> {
  const { agent, base } = target;
  const uploaded = await ok(`${base}/upload`, {
    method: 'POST',
    headers: { 'content-type': UPLOAD.contentType, 'content-length': UPLOAD.body.length },
    body: UPLOAD.body,
    agent,
  });
  const file = JSON.parse(uploaded.body.toString('utf8')) as { fileId: string; fileName: string };
  const request = JSON.stringify({ fileId: file.fileId, fileName: file.fileName, targetFormat: 'md' });
  const converted = await ok(`${base}/convert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(request) },
    body: request,
    agent,
  });
  const { downloadId } = JSON.parse(converted.body.toString('utf8')) as { downloadId: string };
  const downloaded = await ok(`${base}/download?id=${encodeURIComponent(downloadId)}`, { agent });
  if (!downloaded.body.subarray(-TEXT.length).equals(TEXT)) throw new Error(`${base}: download differs`);
  return [uploaded, converted, downloaded];
}

/** Runs `once` `total` times, at most CONCURRENCY at once. */
async function load(total: number, once: () => Promise<unknown>): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      await once();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

function headerNames(res: HttpResponse): string {
  return Object.keys(res.headers)
    .filter((name) => !FRAMING_HEADERS.has(name))
    .sort()
    .join(', ');
}

function jsonKeys(res: HttpResponse): string {
  return Object.keys(JSON.parse(res.body.toString('utf8')) as object).join(', ');
}

/** Both servers answer the same bodies (JSON shapes, result bytes) and headers: the comparison is fair. */
async function checkSameAnswers(baseline: Target, candidate: Target): Promise<void> {
  const [ours, theirs] = [await health(candidate), await health(baseline)];
  const pairs: [string, string, string][] = [
    ['health body', ours.body.toString(), theirs.body.toString()],
    ['health headers', headerNames(ours), headerNames(theirs)],
  ];
  const [flowOurs, flowTheirs] = [await convert(candidate), await convert(baseline)];
  ['upload', 'convert', 'download'].forEach((step, index) => {
    const [a, b] = [flowOurs[index]!, flowTheirs[index]!];
    pairs.push([`${step} headers`, headerNames(a), headerNames(b)]);
    if (step !== 'download') pairs.push([`${step} fields`, jsonKeys(a), jsonKeys(b)]);
  });
  pairs.push(['download bytes', flowOurs[2]!.body.toString(), flowTheirs[2]!.body.toString()]);
  for (const [what, a, b] of pairs)
    if (a !== b) throw new Error(`${what} differ:\n  fileconv: ${a}\n  baseline: ${b}`);
}

/** Server CPU time, µs. */
async function cpuOf(server: ChildServer): Promise<number> {
  const { user, system } = await server.cpu();
  return user + system;
}

interface Measured {
  candidatePerSecond: number;
  baselinePerSecond: number;
  ratio: number;
  candidateCpuUs: number;
  baselineCpuUs: number;
  /** The load generator's own CPU per request (this process), both sides together. */
  clientCpuUs: number;
}

async function measure(
  rounds: number,
  baseline: Target,
  candidate: Target,
  requests: number,
  run: (target: Target) => Promise<void>,
): Promise<Measured> {
  let clientCpu = 0;
  const timedRun = async (target: Target) => {
    const started = process.cpuUsage();
    await run(target);
    const used = process.cpuUsage(started);
    clientCpu += used.user + used.system;
  };
  const before = await Promise.all([cpuOf(baseline.server), cpuOf(candidate.server)]);
  const result = await compare(
    rounds,
    () => timedRun(baseline),
    () => timedRun(candidate),
  );
  const after = await Promise.all([cpuOf(baseline.server), cpuOf(candidate.server)]);
  // compare() runs each side once more to warm up.
  const served = (rounds + 1) * requests;
  return {
    clientCpuUs: clientCpu / (2 * served),
    candidatePerSecond: requests / (result.candidateMs / 1000),
    baselinePerSecond: requests / (result.baselineMs / 1000),
    ratio: result.ratio,
    candidateCpuUs: (after[1] - before[1]) / served,
    baselineCpuUs: (after[0] - before[0]) / served,
  };
}

const COLUMNS = [
  ['adapter', 21],
  ['case', 7],
  ['fileconv req/s', 14],
  ['baseline req/s', 14],
  ['baseline', 19],
  ['ratio', 6],
  ['CPU µs/req fileconv', 19],
  ['baseline', 8],
  ['client', 6],
] as const;

function printRow(cells: readonly string[]): void {
  console.log(
    cells
      .map((cell, index) => {
        const width = COLUMNS[index]![1];
        return index < 2 || index === 4 ? cell.padEnd(width) : cell.padStart(width);
      })
      .join('  '),
  );
}

export async function benchHttpAdapters(rounds: number): Promise<void> {
  const requests = Number(process.env.BENCH_ADAPTERS_REQUESTS ?? 3000);
  const flows = Number(process.env.BENCH_ADAPTERS_FLOWS ?? 150);
  const only = process.env.BENCH_ADAPTERS_ONLY?.split(',').map((name) => name.trim());
  const cases = process.env.BENCH_ADAPTERS_CASES?.split(',').map((name) => name.trim()) ?? ['health', 'flow'];
  console.log(
    `HTTP adapters vs the same routes bare in each framework: health = GET /files/api/health x${requests}, ` +
      `Flow B = upload + convert (fake converter) + download x${flows} (3 req each); ${CONCURRENCY} in flight, ` +
      `keep-alive, servers in child processes, no rate-limit counters; ratio = fileconv/baseline req/s, ` +
      `median of ${rounds} alternating rounds`,
  );
  printRow(COLUMNS.map(([name]) => name));
  for (const row of ROWS) {
    if (only && !only.includes(row.key)) continue;
    let candidate: Target | undefined;
    let baseline: Target | undefined;
    try {
      candidate = await startTarget(row.candidate, undefined);
      const body = JSON.parse((await health(candidate)).body.toString('utf8')) as unknown;
      baseline = await startTarget(row.baseline, body);
      await checkSameAnswers(baseline, candidate);
      const runs: [string, string, number, (target: Target) => Promise<void>][] = [
        ['health', 'health', requests, (target) => load(requests, () => health(target))],
        ['flow', 'Flow B', flows * 3, (target) => load(flows, () => convert(target))],
      ];
      for (const [key, name, count, run] of runs) {
        if (!cases.includes(key)) continue;
        const result = await measure(rounds, baseline, candidate, count, run);
        printRow([
          row.adapter,
          name,
          result.candidatePerSecond.toFixed(0),
          result.baselinePerSecond.toFixed(0),
          row.baselineName,
          result.ratio.toFixed(3),
          result.candidateCpuUs.toFixed(0),
          result.baselineCpuUs.toFixed(0),
          result.clientCpuUs.toFixed(0),
        ]);
      }
    } finally {
      for (const target of [candidate, baseline]) target?.agent.destroy();
      await Promise.all([candidate?.server.stop(), baseline?.server.stop()]);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHttpAdapters(Number(process.env.BENCH_ROUNDS ?? 7));
}
