/**
 * Flow B over HTTP: image conversions per second through a real fileconv server (Express +
 * createHttpRouter, fs storage, memory job store and queue, the sharp converter, engine
 * started), the client doing upload -> convert -> download for each file, one request at a
 * time; against sharp called directly on the same files with the converter's default settings.
 * Server, client and direct sharp share this process, so libvips gets the same threads.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { IMAGE_DEFAULTS } from '../src/converters/sharp/index.js';
import { type BenchServiceConfig, startBenchService } from './http-app.js';
import { multipartBody, send, sendJson } from './http-client.js';
import { makePhoto } from './images.js';
import { compare, median } from './stats.js';

/** The engine's default pixel limit, which the converter passes to sharp as limitInputPixels. */
const MAX_PIXELS = 100_000_000;

/** A few realistic uploads: camera-ish JPEGs and a PNG, 1.2 to 1.9 MP. */
const IMAGES = [
  { name: 'photo-1600x1200.jpg', width: 1600, height: 1200, type: 'image/jpeg' },
  { name: 'photo-1500x1000.jpg', width: 1500, height: 1000, type: 'image/jpeg' },
  { name: 'photo-1280x960.png', width: 1280, height: 960, type: 'image/png' },
] as const;

/** What the sharp converter does for jpg/png -> webp with default options (adapters/converters/sharp.ts). */
function directWebp(input: string, output: string) {
  return sharp(input, { failOn: 'error', limitInputPixels: MAX_PIXELS, autoOrient: true })
    .timeout({ seconds: 300 })
    .webp({ quality: IMAGE_DEFAULTS.quality.webp, lossless: false, effort: IMAGE_DEFAULTS.effort.webp })
    .toFile(output);
}

/** Milliseconds spent in each request of the flow, summed over the files of one round. */
interface Phases {
  upload: number;
  convert: number;
  download: number;
}

async function viaHttp(
  url: string,
  agent: Agent,
  input: string,
  type: string,
  output: string,
  phases: Phases,
): Promise<void> {
  const t0 = performance.now();
  const upload = multipartBody(basename(input), type, await readFile(input));
  const file = await sendJson<{ fileId: string; fileName: string }>(`${url}/api/upload`, {
    method: 'POST',
    headers: { 'content-type': upload.contentType, 'content-length': upload.body.length },
    body: upload.body,
    agent,
  });
  const t1 = performance.now();
  const convertBody = JSON.stringify({ fileId: file.fileId, fileName: file.fileName, targetFormat: 'webp' });
  const job = await sendJson<{ downloadId: string }>(`${url}/api/convert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(convertBody) },
    body: convertBody,
    agent,
  });
  const t2 = performance.now();
  const res = await send(`${url}/api/download?id=${encodeURIComponent(job.downloadId)}`, {
    agent,
    saveTo: output,
  });
  if (res.status !== 200) throw new Error(`download: ${res.status} ${res.body}`);
  const t3 = performance.now();
  phases.upload += t1 - t0;
  phases.convert += t2 - t1;
  phases.download += t3 - t2;
}

async function runOne(
  rounds: number,
  dir: string,
  inputs: string[],
  label: string,
  service: Omit<BenchServiceConfig, 'dir'>,
): Promise<void> {
  const serviceDir = await mkdtemp(join(dir, 'service-'));
  const running = await startBenchService({ dir: serviceDir, ...service });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  // Per round after the warm-up: each phase's total, and the whole round.
  const measured: Phases[] = [];
  let warm = false;
  try {
    const direct = async () => {
      for (const [index, input] of inputs.entries())
        await directWebp(input, join(dir, `direct-${index}.webp`));
    };
    const viaFileconv = async () => {
      const phases: Phases = { upload: 0, convert: 0, download: 0 };
      for (const [index, input] of inputs.entries())
        await viaHttp(
          running.url,
          agent,
          input,
          IMAGES[index]!.type,
          join(dir, `http-${index}.webp`),
          phases,
        );
      if (warm) measured.push(phases);
      warm = true;
    };
    const result = await compare(rounds, direct, viaFileconv);
    const perSecond = (ms: number) => (inputs.length / (ms / 1000)).toFixed(2).padStart(6);
    console.log(
      `${label.padEnd(34)} sharp: ${perSecond(result.baselineMs)} conv/s   fileconv: ${perSecond(result.candidateMs)} conv/s   throughput ratio: ${result.ratio.toFixed(3)}`,
    );
    const perFile = (phase: keyof Phases) =>
      (median(measured.map((round) => round[phase])) / inputs.length).toFixed(1);
    console.log(
      `${''.padEnd(34)} mean per file (median round): sharp ${(result.baselineMs / inputs.length).toFixed(1)} ms; ` +
        `fileconv upload ${perFile('upload')} + convert ${perFile('convert')} + download ${perFile('download')} ms`,
    );
    // Same work: same pixels out, and the same encoder settings give the same bytes.
    for (const index of inputs.keys()) {
      const [a, b] = await Promise.all([
        sharp(join(dir, `direct-${index}.webp`)).metadata(),
        sharp(join(dir, `http-${index}.webp`)).metadata(),
      ]);
      if (a.width !== b.width || a.height !== b.height || a.format !== b.format)
        throw new Error('benchmark outputs differ: not the same work');
      const [sizeA, sizeB] = await Promise.all([
        stat(join(dir, `direct-${index}.webp`)),
        stat(join(dir, `http-${index}.webp`)),
      ]);
      if (sizeA.size !== sizeB.size)
        console.log(
          `  note: ${IMAGES[index]!.name}: webp sizes differ (${sizeA.size} vs ${sizeB.size} bytes)`,
        );
    }
  } finally {
    agent.destroy();
    await running.stop();
    await rm(serviceDir, { recursive: true, force: true });
  }
}

export async function benchHttpImages(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-http-images-'));
  try {
    const inputs: string[] = [];
    for (const image of IMAGES) {
      const path = join(dir, image.name);
      await makePhoto(path, image.width, image.height);
      inputs.push(path);
    }
    const sizes = await Promise.all(inputs.map(async (input) => (await stat(input)).size));
    console.log(
      `Flow B over HTTP, sequential, ${IMAGES.length} files -> WebP (q80, effort 4): ` +
        IMAGES.map((image, index) => `${image.name} ${(sizes[index]! / 1e6).toFixed(1)} MB`).join(', '),
    );
    await runOne(rounds, dir, inputs, 'upload+convert+download (fs)', { storage: 'fs', jobs: 'memory' });
    if (process.env.BENCH_HTTP_IMAGES_MEMORY !== '0')
      await runOne(rounds, dir, inputs, 'upload+convert+download (memory)', {
        storage: 'memory',
        jobs: 'memory',
      });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHttpImages(Number(process.env.BENCH_ROUNDS ?? 7));
}
