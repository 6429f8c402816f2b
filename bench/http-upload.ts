/**
 * One big Flow B upload (default 1 GiB; BENCH_UPLOAD_MB shrinks it): MB/s into the fileconv
 * server (fs storage in a temp dir, maxFileBytes 1.1 GiB or more, otherwise as `fileconv
 * serve`) against a bare node:http + busboy server piping the file into fs.createWriteStream.
 * Each server runs in its own child process, so the RSS the child samples every 50 ms is the
 * server's alone; the client (this process) streams the same generated multipart body, 64 KiB
 * chunks, no file on disk. Uploaded bytes are deleted after every upload.
 * BENCH_UPLOAD_ROUNDS sets the alternating rounds (default 3, after one warm-up each);
 * BENCH_UPLOAD_DIAG=1 adds diagnostic servers that isolate what fs storage's fsync costs.
 */
import { randomBytes } from 'node:crypto';
import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { type ChildServer, multipartFraming, send, startChildServer } from './http-client.js';
import { median } from './stats.js';

const MiB = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

/** The body: the multipart head, `fileBytes` of (pseudo-random, repeating) data, the tail. */
function* multipartChunks(head: Buffer, fileBytes: number, tail: Buffer, chunk: Buffer): Generator<Buffer> {
  yield head;
  let left = fileBytes;
  while (left > 0) {
    const size = Math.min(left, chunk.length);
    yield size === chunk.length ? chunk : chunk.subarray(0, size);
    left -= size;
  }
  yield tail;
}

/** Uploads `fileBytes` to `server`; returns the wall time from first byte sent to response, ms. */
async function upload(server: ChildServer, fileBytes: number, chunk: Buffer): Promise<number> {
  const framing = multipartFraming('big.bin', 'application/octet-stream');
  const length = framing.head.length + fileBytes + framing.tail.length;
  const started = performance.now();
  const res = await send(`${server.url}/api/upload`, {
    method: 'POST',
    headers: { 'content-type': framing.contentType, 'content-length': length },
    body: multipartChunks(framing.head, fileBytes, framing.tail, chunk),
  });
  const elapsed = performance.now() - started;
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${res.body.toString().slice(0, 300)}`);
  const { size } = JSON.parse(res.body.toString()) as { size: number };
  if (size !== fileBytes) throw new Error(`upload stored ${size} bytes, sent ${fileBytes}`);
  await server.clean();
  return elapsed;
}

export async function benchHttpUpload(): Promise<void> {
  const megabytes = Number(process.env.BENCH_UPLOAD_MB ?? 1024);
  const rounds = Number(process.env.BENCH_UPLOAD_ROUNDS ?? 3);
  const withDiagnostics = process.env.BENCH_UPLOAD_DIAG === '1';
  const fileBytes = Math.round(megabytes * MiB);
  // One upload at a time lands on disk (and is deleted right after): ask for twice that free.
  const disk = await statfs(tmpdir());
  if (disk.bavail * disk.bsize < 2 * fileBytes + 512 * MiB) {
    console.log(
      `HTTP upload: skipped, less than ${((2 * fileBytes) / MiB + 512).toFixed(0)} MiB free in ${tmpdir()}`,
    );
    return;
  }
  const chunk = randomBytes(CHUNK_BYTES);
  const maxFileBytes = Math.max(Math.ceil(1.1 * 1024 * MiB), fileBytes + MiB);
  const fileconv = {
    name: 'fileconv',
    config: { mode: 'fileconv', storage: 'fs', jobs: 'memory', maxFileBytes },
  };
  const bare = { name: 'busboy', config: { mode: 'busboy' } };
  // Diagnostics (BENCH_UPLOAD_DIAG=1): where the difference goes. fs storage fsyncs before
  // its rename; the bare baseline does not, so these isolate that one step.
  const diagnostics = withDiagnostics
    ? [
        { name: 'fileconv, fs storage fsync: false', config: { ...fileconv.config, fsync: false } },
        { name: 'busboy + fsync before close', config: { mode: 'busboy', sync: 'end' } },
        { name: 'busboy + fdatasync every 64 MiB', config: { mode: 'busboy', sync: 'periodic' } },
      ]
    : [];
  const servers = [bare, fileconv, ...diagnostics];
  const running: ChildServer[] = [];
  try {
    for (const server of servers) running.push(await startChildServer(server.config));
    const times: number[][] = servers.map(() => []);
    const cpuBefore = await Promise.all(running.map((server) => server.cpu()));
    // Warm-up, then alternate so drift in the machine's load hits all alike.
    for (const server of running) await upload(server, fileBytes, chunk);
    for (let round = 0; round < rounds; round++) {
      for (const [index, server] of running.entries())
        times[index]!.push(await upload(server, fileBytes, chunk));
    }
    // Server CPU (user + system, the child's own) per GiB uploaded, over warm-up and rounds.
    const cpuAfter = await Promise.all(running.map((server) => server.cpu()));
    const gibs = ((rounds + 1) * fileBytes) / (1024 * MiB);
    const cpuPerGiB = cpuAfter.map((after, index) => ({
      user: (after.user - cpuBefore[index]!.user) / 1e6 / gibs,
      system: (after.system - cpuBefore[index]!.system) / 1e6 / gibs,
    }));
    const rates = times.map((each) => fileBytes / 1e6 / (median(each) / 1000));
    const bareRate = rates[0]!;
    const line = (label: string, name: string, rate: number) =>
      console.log(
        `${label.padEnd(34)} busboy: ${bareRate.toFixed(0).padStart(5)} MB/s   ${name}: ${rate
          .toFixed(0)
          .padStart(5)} MB/s   throughput ratio: ${(rate / bareRate).toFixed(3)}`,
      );
    const size =
      megabytes >= 1024 ? `${(megabytes / 1024).toFixed(megabytes % 1024 ? 2 : 0)} GiB` : `${megabytes} MiB`;
    line(`${size} multipart upload`, 'fileconv', rates[1]!);
    for (const [index, diagnostic] of diagnostics.entries())
      line(`  ${diagnostic.name}`, 'this', rates[index + 2]!);
    console.log(
      `${''.padEnd(34)} server CPU per GiB: ` +
        servers
          .map((server, index) => {
            const { user, system } = cpuPerGiB[index]!;
            return `${server.name} ${(user + system).toFixed(2)} s (user ${user.toFixed(2)})`;
          })
          .join(', '),
    );
    const [rssBare, rssFileconv] = [await running[0]!.rss(), await running[1]!.rss()];
    const growth = (rss: { baseline: number; peak: number }) => ((rss.peak - rss.baseline) / MiB).toFixed(1);
    console.log(
      `${''.padEnd(34)} peak RSS growth over ${rounds + 1} uploads: fileconv server ${growth(rssFileconv)} MiB ` +
        `(baseline ${(rssFileconv.baseline / MiB).toFixed(0)} MiB), busboy server ${growth(rssBare)} MiB ` +
        `(baseline ${(rssBare.baseline / MiB).toFixed(0)} MiB)`,
    );
  } finally {
    await Promise.all(running.map((server) => server.stop()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHttpUpload();
}
