import { describe, expect, it } from 'vitest';
import { DATA_EDGES } from '../src/converters/data/data-edges.js';
import { SHEET_EDGES } from '../src/converters/exceljs/sheet-edges.js';
import { buildMediaEdges } from '../src/converters/ffmpeg/media-edges.js';
import { OCR_EDGES } from '../src/converters/ocr/ocr-edges.js';
import { PDF_EDGES } from '../src/converters/pdf/pdf-edges.js';
import { buildImageEdges } from '../src/converters/sharp/image-edges.js';
import { isFileconvError } from '../src/core/errors.js';
import { carriesAudio, wordsIn } from '../src/core/formats/lookup.js';
import { ConversionGraph } from '../src/core/graph/index.js';
import { DECLARED_CONVERTERS } from '../src/preset/converter-edges.generated.js';

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

describe('words along a chain', () => {
  // The shipped edges that matter: images to PDF and PDF's text layer out (pdf), OCR of a
  // picture, sharp's images and gif, ffmpeg's video to gif, and text on to a document.
  const documents = ConversionGraph.fromConverters(
    [
      { name: 'sharp', edges: buildImageEdges(false) },
      { name: 'pdf', edges: PDF_EDGES },
      { name: 'ocr', edges: OCR_EDGES },
      { name: 'ffmpeg', edges: buildMediaEdges() },
      { name: 'rsvg', edges: [{ from: 'svg', to: 'pdf', cost: 1 }] },
      { name: 'libreoffice', edges: [{ from: 'txt', to: 'docx', cost: 4 }] },
    ],
    { carriesAudio, wordsIn },
  );

  it('never reads a text layer from a PDF made of a photo: its text is OCR, and ends there', () => {
    expect(documents.findPath('jpg', 'txt').steps.map((s) => s.converter)).toEqual(['ocr']);
    // jpg -> pdf -> txt -> docx made an empty document (or "the input file is empty").
    expect(documents.canConvert('jpg', 'docx')).toBe(false);
    expect(documents.targetsOf('jpg')).toContain('pdf');
    // Rasterised pages are pixels too: pdf -> png -> pdf -> txt is no way round.
    expect(documents.findPath('pdf', 'docx').steps.map((s) => s.to)).toEqual(['txt', 'docx']);
  });

  it('never reads a video frame by OCR', () => {
    expect(documents.targetsOf('mp4')).toContain('gif');
    expect(documents.canConvert('mp4', 'txt')).toBe(false);
  });

  it('reads a drawn image (svg) as text', () => {
    expect(documents.findPath('svg', 'docx').steps.map((s) => s.to)).toEqual(['pdf', 'txt', 'docx']);
  });

  it('without wordsIn nothing is ruled out', () => {
    const blind = ConversionGraph.fromConverters([
      { name: 'pdf', edges: PDF_EDGES },
      { name: 'libreoffice', edges: [{ from: 'txt', to: 'docx', cost: 4 }] },
    ]);
    expect(blind.findPath('jpg', 'docx').steps.map((s) => s.to)).toEqual(['pdf', 'txt', 'docx']);
  });
});

describe('records along a chain', () => {
  // The shipped sheet and data edges: a sheet's rows as JSON are a list, TOML needs a table on top.
  const data = ConversionGraph.fromConverters([
    { name: 'exceljs', edges: SHEET_EDGES },
    { name: 'data', edges: DATA_EDGES },
  ]);

  it('never plans TOML from rows or events (xlsx -> json -> toml could only fail)', () => {
    for (const source of ['xlsx', 'csv', 'tsv', 'vcf', 'ics']) {
      expect(data.targetsOf(source), source).toContain('yaml');
      expect(data.canConvert(source, 'toml'), source).toBe(false);
    }
  });

  it('still offers TOML from JSON and YAML, whose top level may be an object', () => {
    expect(data.findPath('json', 'toml').steps.map((s) => s.to)).toEqual(['toml']);
    expect(data.findPath('yaml', 'toml').steps.map((s) => s.to)).toEqual(['toml']);
  });
});

describe('the shipped converters (declared edges)', () => {
  const shipped = ConversionGraph.fromConverters(DECLARED_CONVERTERS, { carriesAudio, wordsIn });

  it('offer a photo no text document but txt by OCR (jpg -> docx was planned through an empty pdf -> txt)', () => {
    const targets = shipped.targetsOf('jpg');
    for (const document of ['docx', 'odt', 'rtf', 'epub', 'html', 'fodt', 'md']) {
      expect(targets, document).not.toContain(document);
    }
    expect(shipped.findPath('jpg', 'txt').steps.map((s) => s.converter)).toEqual(['ocr']);
    expect(targets).toContain('pdf');
    // A document keeps its text targets.
    expect(shipped.targetsOf('pptx')).toContain('docx');
  });
});
