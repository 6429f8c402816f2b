/**
 * The red-team's bombs against a real `fileconv serve` process. The inflating .docx: a 2.4 MB document whose
 * XML holds 400,000 ordinary paragraphs (under every zip-bomb limit) needs more memory to convert
 * than a conversion may have. Sent by two clients at once, then by ten: every one fails with
 * INPUT_LIMIT_EXCEEDED, another client's conversion completes meanwhile, the server stays up, its
 * health check keeps answering and its memory stays flat. The pure-JS converters run in child
 * processes with a heap cap (adapters/converters/isolation); before them, two of these killed
 * the server (heap out of memory at 5.7 GB). Then a frame-bomb GIF (refused on its probe) and a
 * heavy PDF (parsed in a process of its own) beside them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exited, type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { fixture } from '../helpers/temp.js';
import { frameBombGif } from './frame-bomb-gif.js';
import { heavyPdf } from './heavy-pdf.js';
import { inflatingDocx } from './inflating-docx.js';

let serve: ServeProcess;
let docx: Buffer;
let data: string;

beforeAll(async () => {
  // Its own dir for the whole file (helpers' tempDir() is removed after each test).
  data = await mkdtemp(join(tmpdir(), 'fileconv-bomb-'));
  serve = await startServeProcess(['--data', data, '--no-web', '--no-log']);
  docx = await inflatingDocx(400_000);
  // The first health check loads every engine to report on it: a cost of the first call, not
  // of what this file measures.
  expect((await send('/api/health', '127.0.0.1')).status).toBe(200);
}, 60_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  await rm(data, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: Buffer;
}

/** One request from `localAddress` (every 127.x.y.z reaches the server: another client IP). */
function send(
  path: string,
  localAddress: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${serve.url}${path}`,
      { method: options.method ?? 'GET', headers: options.headers, localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Flow B from one client: upload, convert; the convert answer. */
async function convert(bytes: Buffer, name: string, target: string, localAddress: string): Promise<Answer> {
  const boundary = `----fileconv${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const uploaded = await send('/api/upload', localAddress, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  });
  expect(uploaded.status, uploaded.body.toString()).toBe(200);
  const { fileId } = JSON.parse(uploaded.body.toString()) as { fileId: string };
  return send('/api/convert', localAddress, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ fileId, fileName: name, targetFormat: target })),
  });
}

/** The server process's resident memory, bytes (Linux). */
async function serverRss(): Promise<number> {
  const status = await readFile(`/proc/${serve.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Runs `work` while health is polled and RSS sampled; the worst latency and the peak RSS. */
async function watched<T>(work: Promise<T>): Promise<{ result: T; worstHealthMs: number; peakRss: number }> {
  let done = false;
  let worstHealthMs = 0;
  let peakRss = 0;
  const health = (async () => {
    // From a new address each time: health is rate-limited per IP like any other request.
    for (let poll = 0; !done; poll++) {
      const started = performance.now();
      const answer = await send('/api/health', `127.0.3.${(poll % 250) + 1}`);
      worstHealthMs = Math.max(worstHealthMs, performance.now() - started);
      expect(answer.status).toBe(200);
      peakRss = Math.max(peakRss, await serverRss());
      await sleep(50);
    }
  })();
  try {
    return { result: await work, worstHealthMs, peakRss };
  } finally {
    done = true;
    await health;
  }
}

async function bombsAtOnce(count: number) {
  const png = await readFile(fixture('fixture.png'));
  return watched(
    Promise.all([
      ...Array.from({ length: count }, (_, index) =>
        convert(docx, 'report.docx', 'md', `127.0.1.${index + 1}`),
      ),
      // Someone else converting meanwhile.
      convert(png, 'photo.png', 'webp', '127.0.2.1'),
    ]),
  );
}

function expectAllRefusedAndOthersServed(answers: Answer[], count: number): Promise<void> {
  for (const answer of answers.slice(0, count)) {
    expect(answer.status, answer.body.toString()).toBe(422);
    expect(JSON.parse(answer.body.toString()).error.code).toBe('INPUT_LIMIT_EXCEEDED');
  }
  const other = answers[count]!;
  expect(other.status, other.body.toString()).toBe(200);
  const { downloadId } = JSON.parse(other.body.toString()) as { downloadId: string };
  return send(`/api/download?id=${downloadId}`, '127.0.2.1').then(async (download) => {
    expect((await sharp(download.body).metadata()).format).toBe('webp');
  });
}

it.each([
  ['two', 2],
  ['ten', 10],
])(
  '%s inflating docx conversions at once: each INPUT_LIMIT_EXCEEDED, the server stays up and answers',
  async (words, count) => {
    const { result, worstHealthMs, peakRss } = await bombsAtOnce(count);
    await expectAllRefusedAndOthersServed(result, count);
    expect(serve.child.exitCode).toBeNull();
    // Facts of this run (printed for the record), with room for a loaded CI machine.
    console.log(
      `${words} bombs: worst health ${worstHealthMs.toFixed(0)} ms, server peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
    );
    expect(worstHealthMs).toBeLessThan(1000);
    expect(peakRss).toBeLessThan(1024 ** 3);
  },
  240_000,
);

it('a frame-bomb GIF and a heavy PDF beside two docx bombs: refused or done within budget, health answers throughout', async () => {
  const { result, worstHealthMs, peakRss } = await watched(
    Promise.all([
      convert(docx, 'report.docx', 'md', '127.0.4.1'),
      convert(docx, 'report.docx', 'md', '127.0.4.2'),
      // 69 KB declaring 3000 frames of 4000x4000: refused on its probe.
      convert(frameBombGif(3000), 'bomb.gif', 'mp4', '127.0.4.3'),
      // 184 KB whose page inflates to 60 MB of text operators: parsed in its own process.
      convert(heavyPdf(60), 'heavy.pdf', 'txt', '127.0.4.4'),
    ]),
  );
  const [first, second, gif, pdf] = result as [Answer, Answer, Answer, Answer];
  for (const bomb of [first, second, gif]) {
    expect(bomb.status, bomb.body.toString()).toBe(422);
    expect(JSON.parse(bomb.body.toString()).error.code).toBe('INPUT_LIMIT_EXCEEDED');
  }
  // Within its process's heap the PDF converts, or it is stopped at the cap: never a 5xx.
  if (pdf.status === 200) {
    // Converted: the text is the page's own, not just some bytes.
    const { downloadId } = JSON.parse(pdf.body.toString()) as { downloadId: string };
    const text = (await send(`/api/download?id=${downloadId}`, '127.0.4.4')).body;
    expect(text.subarray(0, 64).toString()).toMatch(/^heavy text/);
    expect(text.length).toBeLessThanOrEqual(64 * 1024 * 1024);
  } else {
    expect(pdf.status, pdf.body.toString()).toBe(422);
    expect(JSON.parse(pdf.body.toString()).error.code).toBe('INPUT_LIMIT_EXCEEDED');
  }
  expect(serve.child.exitCode).toBeNull();
  console.log(
    `docx, gif and pdf bombs: worst health ${worstHealthMs.toFixed(0)} ms, server peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
  );
  expect(worstHealthMs).toBeLessThan(1000);
  expect(peakRss).toBeLessThan(1024 ** 3);
}, 240_000);
