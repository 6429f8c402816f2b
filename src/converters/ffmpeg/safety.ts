/**
 * Checks on what the probe found, before ffmpeg decodes anything: the input must really be the
 * declared container (a second line behind the engine's magic-byte detection, for callers that
 * use the converter directly), it must hold the stream the target needs, and it must be within
 * the duration and resolution limits. Each refusal is a FileconvError with a stable code.
 */
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import type { WorkLimits } from '../../core/ports/index.js';
import { workBudgetError } from '../../core/work-limits.js';
import type { MediaContainer } from './containers.js';
import type { MediaProbe, MediaStream } from './runner.js';

export interface MediaLimits {
  maxPixels: number;
  maxWidth: number;
  maxHeight: number;
  maxDurationSeconds: number;
}

export interface WorkBudget {
  /** Pixels any input may decode in all (frames x frame size), whatever its size. */
  minWorkPixels: number;
  /** Beyond that floor: pixels decoded allowed per byte of input. */
  workPixelsPerByte: number;
}

/** The streams a conversion uses: the first real video track and the first audio track. */
export interface ChosenStreams {
  video: MediaStream | undefined;
  audio: MediaStream | undefined;
}

/** CONTENT_MISMATCH unless ffmpeg read the file with the demuxer of the declared format. */
export function assertDeclaredContainer(probe: MediaProbe, from: FormatName, source: MediaContainer): void {
  const names = probe.formatName.split(',').map((name) => name.trim());
  if (names.includes(source.demuxer)) return;
  throw new FileconvError(
    'CONTENT_MISMATCH',
    `The file was declared ${from} but its content is ${names[0] || 'something else'}`,
    { details: { declared: from, detected: probe.formatName } },
  );
}

/** Picks the streams to convert; cover art (an attached picture) is not a video track. */
export function chooseStreams(probe: MediaProbe): ChosenStreams {
  return {
    video: probe.streams.find((stream) => stream.kind === 'video' && !stream.attachedPicture),
    audio: probe.streams.find((stream) => stream.kind === 'audio'),
  };
}

/**
 * The input must hold what the target is made of. A file without the needed stream is a valid
 * file of its format (an mp4 holding only audio, a silent video), so it is UNSUPPORTED_CONVERSION,
 * not CORRUPT_INPUT: the conversion asked for cannot be made from it. Audio to a video format is
 * refused rather than rendered over a black picture, which nobody asking for a video expects.
 */
export function assertStreamsFor(
  streams: ChosenStreams,
  probe: MediaProbe,
  to: FormatName,
  target: MediaContainer,
) {
  if (probe.streams.length === 0) throw new FileconvError('CORRUPT_INPUT', 'The file holds no media streams');
  if (target.kind !== 'audio' && !streams.video) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `The input has no video stream, so it cannot become ${to}`,
      { details: { reason: 'no-video-stream', streams: probe.streams.map((stream) => stream.kind) } },
    );
  }
  if (target.kind === 'audio' && !streams.audio) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `The input has no audio stream, so it cannot become ${to}`,
      { details: { reason: 'no-audio-stream', streams: probe.streams.map((stream) => stream.kind) } },
    );
  }
  const video = streams.video;
  if (target.kind !== 'audio' && video && !(video.width && video.height)) {
    throw new FileconvError('CORRUPT_INPUT', 'The video stream has no frame size');
  }
}

/** INPUT_LIMIT_EXCEEDED for inputs longer or larger than the limits. */
export function assertWithinLimits(probe: MediaProbe, limits: MediaLimits): void {
  const duration = probe.durationSeconds;
  if (duration !== undefined && duration > limits.maxDurationSeconds) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The input lasts ${Math.round(duration)} s; the limit is ${limits.maxDurationSeconds} s`,
      { details: { durationSeconds: duration, maxDurationSeconds: limits.maxDurationSeconds } },
    );
  }
  // Every video stream, not only the chosen one: ffmpeg opens a decoder for each while probing.
  for (const stream of probe.streams) {
    if (stream.kind !== 'video' || !stream.width || !stream.height) continue;
    assertFrameSize(stream.width, stream.height, limits, 'The input video is');
  }
}

/** INPUT_LIMIT_EXCEEDED for a frame size above the limits; `subject` names whose frame it is. */
export function assertFrameSize(width: number, height: number, limits: MediaLimits, subject: string): void {
  const { maxPixels, maxWidth, maxHeight } = limits;
  if (width <= maxWidth && height <= maxHeight && width * height <= maxPixels) return;
  throw new FileconvError(
    'INPUT_LIMIT_EXCEEDED',
    `${subject} ${width}x${height} pixels; the limit is ${maxWidth}x${maxHeight} and ${maxPixels} pixels a frame`,
    { details: { width, height, maxWidth, maxHeight, maxPixels } },
  );
}

/**
 * The work an input asks for, decided from the probe before anything is decoded: the frames of
 * each video stream (its frame count, or duration x frame rate) times its frame size must stay
 * within the larger of `minWorkPixels` and `inputBytes x workPixelsPerByte`. A tiny file that
 * declares thousands of huge frames (a frame bomb) is refused in milliseconds instead of keeping
 * a worker busy until the timeout. INPUT_LIMIT_EXCEEDED, naming the numbers.
 */
export function assertWorkBudget(probe: MediaProbe, inputBytes: number, work: WorkBudget): void {
  const budget = Math.max(work.minWorkPixels, inputBytes * work.workPixelsPerByte);
  for (const { frames, width, height } of videoWork(probe)) {
    const pixels = frames * width * height;
    if (pixels <= budget) continue;
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The input asks for ${frames} frames of ${width}x${height} pixels from ${inputBytes} bytes: more decoding than a file of its size may cost (${budget} pixels)`,
      { details: { frames, width, height, inputBytes, budgetPixels: budget } },
    );
  }
}

/**
 * The conversion's own budgets (a plan's maxMediaSeconds and maxWorkPixels), from the probe
 * before anything is decoded: INPUT_LIMIT_EXCEEDED naming the budget.
 */
export function assertConversionBudgets(probe: MediaProbe, limits: WorkLimits): void {
  const duration = probe.durationSeconds;
  const { maxMediaSeconds, maxWorkPixels } = limits;
  if (maxMediaSeconds !== undefined && duration !== undefined && duration > maxMediaSeconds) {
    const seconds = Math.ceil(duration);
    throw workBudgetError('maxMediaSeconds', `The input lasts ${seconds} s`, seconds, maxMediaSeconds);
  }
  if (maxWorkPixels === undefined) return;
  for (const { frames, width, height } of videoWork(probe)) {
    const pixels = frames * width * height;
    if (pixels > maxWorkPixels) {
      throw workBudgetError(
        'maxWorkPixels',
        `${frames} frames of ${width}x${height} pixels`,
        pixels,
        maxWorkPixels,
      );
    }
  }
}

/** Each decoded video stream's frames (its frame count, or duration x frame rate) and frame size. */
function* videoWork(probe: MediaProbe): Generator<{ frames: number; width: number; height: number }> {
  for (const stream of probe.streams) {
    if (stream.kind !== 'video' || stream.attachedPicture || !stream.width || !stream.height) continue;
    const frames =
      stream.frames ??
      (probe.durationSeconds !== undefined && stream.fps !== undefined
        ? Math.ceil(probe.durationSeconds * stream.fps)
        : undefined);
    if (frames !== undefined) yield { frames, width: stream.width, height: stream.height };
  }
}
