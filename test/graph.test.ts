import { describe, expect, it } from 'vitest';
import { buildMediaEdges } from '../src/converters/ffmpeg/media-edges.js';
import { buildImageEdges } from '../src/converters/sharp/image-edges.js';
import { isFileconvError } from '../src/core/errors.js';
import { carriesAudio } from '../src/core/formats/lookup.js';
import { ConversionGraph } from '../src/core/graph/index.js';

const graph = ConversionGraph.fromConverters([
  {
    name: 'images',
    edges: [
      { from: 'png', to: 'jpg', cost: 1, lossy: true },
      { from: 'jpg', to: 'png', cost: 1 },
      { from: 'png', to: 'webp', cost: 1, lossy: true },
      { from: 'jpg', to: 'webp', cost: 1, lossy: true },
      { from: 'jpg', to: 'jpg', cost: 1, lossy: true },
    ],
  },
  {
    name: 'heic',
    edges: [
      { from: 'heic', to: 'png', cost: 2 },
      { from: 'heic', to: 'jpg', cost: 1, lossy: true },
    ],
  },
  { name: 'slow', edges: [{ from: 'png', to: 'webp', cost: 5, lossy: true }] },
]);

describe('ConversionGraph', () => {
  it('finds a direct edge', () => {
    const plan = graph.findPath('jpg', 'webp');
    expect(plan.steps.map((s) => [s.from, s.to, s.converter])).toEqual([['jpg', 'webp', 'images']]);
    expect(plan.cost).toBe(1);
    expect(plan.lossySteps).toBe(1);
  });

  it('chains several hops when no direct edge exists', () => {
    const plan = graph.findPath('heic', 'webp');
    expect(plan.steps.map((s) => s.to)).toEqual(['png', 'webp']);
  });

  it('prefers a lossless detour to a cheaper path that re-encodes twice', () => {
    // heic -> jpg -> webp costs 2 but is lossy twice; heic -> png -> webp costs 3, lossy once.
    const plan = graph.findPath('heic', 'webp');
    expect(plan.cost).toBe(3);
    expect(plan.lossySteps).toBe(1);
  });

  it('keeps the cheaper converter for the same pair', () => {
    expect(graph.findPath('png', 'webp').steps[0]?.converter).toBe('images');
  });

  it('converts a format to itself only through a self-edge', () => {
    expect(graph.findPath('jpg', 'jpg').steps).toHaveLength(1);
    expect(() => graph.findPath('png', 'png')).toThrow(/png into png/);
  });

  it('fails with UNSUPPORTED_CONVERSION when no path exists', () => {
    try {
      graph.findPath('webp', 'heic');
      expect.unreachable();
    } catch (error) {
      expect(isFileconvError(error, 'UNSUPPORTED_CONVERSION')).toBe(true);
    }
    expect(() => graph.findPath('mp3', 'png')).toThrow(/mp3 into png/);
  });

  it('respects the step limit', () => {
    expect(graph.canConvert('heic', 'webp', { maxSteps: 1 })).toBe(false);
    expect(graph.canConvert('heic', 'webp', { maxSteps: 2 })).toBe(true);
  });

  it('lists reachable targets', () => {
    expect(graph.targetsOf('heic')).toEqual(['jpg', 'png', 'webp']);
    expect(graph.targetsOf('jpg')).toEqual(['jpg', 'png', 'webp']);
    expect(graph.targetsOf('webp')).toEqual([]);
  });

  it('rejects an edge without a valid cost', () => {
    const g = new ConversionGraph();
    expect(() => g.addEdge('x', { from: 'a', to: 'b', cost: Number.NaN })).toThrow(/finite cost/);
    expect(() => g.addEdge('x', { from: 'a', to: 'b', cost: -1 })).toThrow(/finite cost/);
  });

  describe('sound along a chain', () => {
    // The shipped image and media edges: sharp writes gif from any image, ffmpeg turns gif into
    // video and video into audio. png -> gif -> mp4 -> mp3 is three steps, but has no sound.
    const media = ConversionGraph.fromConverters(
      [
        { name: 'sharp', edges: buildImageEdges(false) },
        { name: 'ffmpeg', edges: buildMediaEdges() },
      ],
      { carriesAudio },
    );

    it('never offers an audio target from a still image or a GIF', () => {
      for (const image of ['png', 'jpg', 'webp', 'gif', 'bmp']) {
        const targets = media.targetsOf(image);
        expect(targets, image).toContain('mp4');
        for (const audio of ['mp3', 'wav', 'flac']) expect(targets, image).not.toContain(audio);
      }
      expect(() => media.findPath('png', 'mp3')).toThrow(/No converter here turns png into mp3/);
      expect(media.canConvert('gif', 'wav')).toBe(false);
    });

    it('still extracts a video soundtrack and converts audio to audio', () => {
      expect(media.findPath('mp4', 'mp3').steps.map((s) => s.to)).toEqual(['mp3']);
      expect(media.findPath('wav', 'flac').steps.map((s) => s.to)).toEqual(['flac']);
      expect(media.targetsOf('mkv')).toContain('ogg');
    });

    it('without carriesAudio nothing is ruled out (the chain through gif is found)', () => {
      const blind = ConversionGraph.fromConverters([
        { name: 'sharp', edges: buildImageEdges(false) },
        { name: 'ffmpeg', edges: buildMediaEdges() },
      ]);
      expect(blind.findPath('png', 'mp3').steps.map((s) => s.to)).toEqual(['gif', 'mp4', 'mp3']);
    });

    it('a chain keeps its sound only while every format on it can hold one', () => {
      const g = ConversionGraph.fromConverters(
        [
          {
            name: 'x',
            edges: [
              { from: 'mp4', to: 'gif', cost: 1 },
              { from: 'gif', to: 'webm', cost: 1 },
              { from: 'webm', to: 'mp3', cost: 1, needsAudio: true },
              { from: 'mp4', to: 'mkv', cost: 5 },
              { from: 'mkv', to: 'webm', cost: 5 },
            ],
          },
        ],
        { carriesAudio },
      );
      // mp4 -> gif -> webm is cheaper to webm, but silent: mp3 takes the dearer way that keeps sound.
      expect(g.findPath('mp4', 'webm').steps.map((s) => s.to)).toEqual(['gif', 'webm']);
      expect(g.findPath('mp4', 'mp3').steps.map((s) => s.to)).toEqual(['mkv', 'webm', 'mp3']);
    });
  });
});

describe('finalOnly steps (OCR)', () => {
  it('end a chain but never feed one', () => {
    const graph = new ConversionGraph();
    graph.addEdge('ocr', { from: 'png', to: 'txt', cost: 1.5, lossy: true, finalOnly: true });
    graph.addEdge('text', { from: 'txt', to: 'pdf', cost: 1 });
    graph.addEdge('pdf', { from: 'pdf', to: 'txt', cost: 1, lossy: true });
    graph.addEdge('text', { from: 'txt', to: 'html', cost: 1 });
    // png -> txt is what OCR is asked for.
    expect(graph.findPath('png', 'txt').steps.map((step) => step.converter)).toEqual(['ocr']);
    // png -> txt -> pdf would print guessed words where a PDF engine is missing.
    expect(graph.canConvert('png', 'pdf')).toBe(false);
    expect(graph.targetsOf('png')).toEqual(['txt']);
    // txt reached by an ordinary step still goes on.
    expect(graph.findPath('pdf', 'html').steps.map((step) => step.converter)).toEqual(['pdf', 'text']);
  });
});
