/**
 * Media benchmark (BENCH_ONLY=media), on a 10 s 640x360 H.264/AAC clip and a 30 s stereo WAV made
 * with the native ffmpeg in a temp dir, for mp4 -> webm and wav -> mp3, in the same run:
 *
 * (a) the engine's in-process API (convertFile, native ffmpeg) against the ffmpeg CLI run directly
 *     with the arguments the converter planned (captured with its `onPlan` option), in alternating
 *     rounds. The ratio measures the engine's extra work: content detection, reading the
 *     container's header (header-probe.ts; ffprobe only where a header is not enough), the work
 *     dir, progress on a pipe, moving the result into place. A third contender, ffprobe then the
 *     same ffmpeg, is what the engine cost when it probed every input with ffprobe, a second
 *     process (Debian's ffmpeg and ffprobe link ~215 shared libraries, ~80 ms to start here).
 *     Each pair ends with one line: the throughput ratio (CLI time / engine time; 1.0 = the CLI's
 *     speed, the target is >= 0.90 for wav -> mp3 and >= 0.95 for video).
 * (b) the WebAssembly engine against the native one, both through convertFile with the same
 *     settings: VP8 for webm, since the wasm engine does not encode VP9 (the native default).
 *
 * Prints medians and time ratios (engine/CLI, wasm/native: above 1 is slower). BENCH_ROUNDS
 * (run.ts) sets the rounds of (a); (b) takes BENCH_WASM_ROUNDS, default 3, as a webm encode in
 * wasm takes several seconds.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createFfmpegConverter, type FfmpegPlan } from '../src/converters/ffmpeg/index.js';
import { PROBE_ENTRIES } from '../src/converters/ffmpeg/probe-json.js';
import { createEngine } from '../src/index.js';
import { median, recordTarget, timed } from './stats.js';

const run = promisify(execFile);
const FFMPEG = process.env.FFMPEG_PATH ?? 'ffmpeg';
const FFPROBE = process.env.FFPROBE_PATH ?? 'ffprobe';
const SECONDS = 10;
/** The wav -> mp3 row: 30 s of stereo. */
const WAV_SECONDS = 30;

async function makeInputs(dir: string): Promise<{ clip: string; wav: string }> {
  const clip = join(dir, 'clip.mp4');
  const wav = join(dir, 'tone.wav');
  const quiet = ['-nostdin', '-v', 'error', '-y'];
  await run(FFMPEG, [
    ...quiet,
    ...['-f', 'lavfi', '-i', `testsrc2=duration=${SECONDS}:size=640x360:rate=30`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}:sample_rate=48000`],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', '-ac', '2', '-shortest'],
    clip,
  ]);
  await run(FFMPEG, [
    ...quiet,
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${WAV_SECONDS}:sample_rate=44100`],
    ...['-ac', '2', '-c:a', 'pcm_s16le'],
    wav,
  ]);
  return { clip, wav };
}

/** Codec names of a file's streams, to check both sides did the same work. */
async function codecs(path: string): Promise<string> {
  const args = ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', path];
  const { stdout } = await run(FFPROBE, args);
  return stdout.trim().split('\n').join('+');
}

/**
 * Runs the contenders in turn `rounds` times, after one warm-up each, so drift in the machine's
 * load hits all alike; returns each one's median in ms.
 */
async function alternate(rounds: number, contenders: readonly (() => Promise<unknown>)[]): Promise<number[]> {
  for (const contender of contenders) await contender();
  const times = contenders.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, contender] of contenders.entries()) times[i]!.push(await timed(contender));
  }
  return times.map(median);
}

function line(name: string, baseline: [string, number], candidate: [string, number], ratioName: string) {
  const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;
  const ratio = (candidate[1] / baseline[1]).toFixed(3);
  console.log(
    `${name.padEnd(28)} ${baseline[0].padStart(11)}: ${ms(baseline[1])}   ${candidate[0]}: ${ms(candidate[1])}   ${ratioName}: ${ratio}`,
  );
}

export async function benchMedia(rounds: number): Promise<void> {
  const wasmRounds = Number(process.env.BENCH_WASM_ROUNDS ?? 3);
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-media-'));
  try {
    const { clip, wav } = await makeInputs(dir);
    const plans: FfmpegPlan[] = [];
    const native = createEngine({
      converters: [createFfmpegConverter({ engine: 'native', onPlan: (plan) => plans.push(plan) })],
      tempDir: dir,
    });
    const wasmConverter = createFfmpegConverter({ engine: 'wasm' });
    const wasmAvailability = await wasmConverter.available();
    const wasm = createEngine({ converters: [wasmConverter], tempDir: dir });
    const pairs = [
      { name: 'mp4 -> webm', row: 'video (mp4 -> webm)', input: clip, to: 'webm', target: 0.95 },
      { name: 'wav -> mp3', row: `wav -> mp3 (${WAV_SECONDS} s)`, input: wav, to: 'mp3', target: 0.9 },
    ] as const;

    console.log(`media: ${SECONDS} s 640x360 H.264/AAC mp4, ${WAV_SECONDS} s stereo wav`);
    console.log(
      `(a) native engine's convertFile vs the ffmpeg CLI with the same arguments, ${rounds} rounds`,
    );
    const nativeDefaultMs = new Map<string, number>();
    for (const pair of pairs) {
      const engineOut = join(dir, `engine.${pair.to}`);
      const cliOut = join(dir, `cli.${pair.to}`);
      plans.length = 0;
      await native.convertFile(pair.input, engineOut);
      const planned = plans.at(-1);
      if (!planned) throw new Error('the converter reported no plan');
      // The planned arguments name the input after -i and the converter's scratch output last.
      const args = [...planned.args];
      args[args.indexOf('-i') + 1] = pair.input;
      args[args.length - 1] = cliOut;
      const cli = () => run(FFMPEG, ['-nostdin', '-hide_banner', '-y', '-v', 'error', ...args]);
      const probeArgs = ['-v', 'error', '-print_format', 'json', '-show_entries', PROBE_ENTRIES, pair.input];
      const [cliMs, probedMs, engineMs] = await alternate(rounds, [
        cli,
        async () => {
          await run(FFPROBE, probeArgs);
          await cli();
        },
        () => native.convertFile(pair.input, engineOut),
      ]);
      const [a, b] = await Promise.all([codecs(cliOut), codecs(engineOut)]);
      if (a !== b) throw new Error(`benchmark outputs differ (${a} vs ${b}): not the same work`);
      nativeDefaultMs.set(pair.to, engineMs!);
      line(`${pair.name} (${b})`, ['ffmpeg CLI', cliMs!], ['fileconv', engineMs!], 'engine/CLI time');
      line(
        '  the CLI after ffprobe',
        ['ffprobe+CLI', probedMs!],
        ['fileconv', engineMs!],
        'engine/(probe+CLI)',
      );
      console.log(
        `  ${pair.row} throughput ratio (ffmpeg CLI time / fileconv time): ${(cliMs! / engineMs!).toFixed(3)}`,
      );
      recordTarget(`${pair.row} vs the same ffmpeg argv`, cliMs! / engineMs!, pair.target);
    }

    console.log(`(b) wasm engine vs native engine, both convertFile, same settings, ${wasmRounds} rounds`);
    if (!wasmAvailability.ok) {
      console.log(`skipped: ${wasmAvailability.reason} (${wasmAvailability.install ?? ''})`);
      return;
    }
    for (const pair of pairs) {
      // VP8 on both sides: the wasm engine does not encode VP9, the native default for webm.
      const options = pair.to === 'webm' ? { videoCodec: 'vp8' } : {};
      const nativeOut = join(dir, `native.${pair.to}`);
      const wasmOut = join(dir, `wasm.${pair.to}`);
      const [nativeMs, wasmMs] = await alternate(wasmRounds, [
        () => native.convertFile(pair.input, nativeOut, { options }),
        () => wasm.convertFile(pair.input, wasmOut, { options }),
      ]);
      const [a, b] = await Promise.all([codecs(nativeOut), codecs(wasmOut)]);
      if (a !== b) throw new Error(`benchmark outputs differ (${a} vs ${b}): not the same work`);
      line(`${pair.name} (${b})`, ['native', nativeMs!], ['wasm', wasmMs!], 'wasm/native time');
    }
    const vp9 = nativeDefaultMs.get('webm');
    if (vp9 !== undefined) {
      console.log(`  (webm defaults: native VP9 ${vp9.toFixed(0)} ms, from (a); wasm VP8, above)`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
