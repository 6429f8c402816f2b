/**
 * Every target offered is a conversion that carries the content. One input of each family is
 * converted to every target the formats listing offers it (formatsOf, what GET /api/formats
 * answers), and each result is read back by a tool that did not write it: its words, pages,
 * picture, streams, font or entries must be the input's. A target that makes an empty document
 * (a photo's "text" through pdf -> txt) or a picture of nothing must not be offered at all.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getFormat } from '../src/core/formats/lookup.js';
import { createConverter, type FileConverter } from '../src/index.js';
import { defaultConverters } from '../src/preset/converters.js';
import {
  archiveEntries,
  fontFamily,
  mediaStreams,
  pdfPages,
  pictureSize,
  postscriptArea,
  svgText,
  wordsOf,
} from './helpers/content-readers.js';
import { ENGINES_REQUIRED } from './helpers/engines.js';
import { fixture, tempDir } from './helpers/temp.js';

// Dozens of conversions per input, two at a time, on a machine other tests share.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 60_000 });

interface Source {
  file: string;
  format: string;
  /** Words the input holds as text (or, for the scan, as pixels OCR reads). */
  words?: RegExp;
}

const SOURCES: Record<string, Source> = {
  image: { file: 'ocr/sentence.png', format: 'png', words: /quick|brown|fox/i },
  document: { file: 'fixture.docx', format: 'docx', words: /fox/i },
  spreadsheet: { file: 'fixture.xlsx', format: 'xlsx', words: /alpha/i },
  presentation: { file: 'fixture.pptx', format: 'pptx', words: /slide/i },
  audio: { file: 'fixture.mp3', format: 'mp3' },
  video: { file: 'fixture.mp4', format: 'mp4' },
  ebook: { file: 'fixture.epub', format: 'epub', words: /fox/i },
  subtitle: { file: 'fixture.srt', format: 'srt', words: /subtitles/i },
  data: { file: 'fixture.json', format: 'json', words: /alpha/i },
  font: { file: 'fixture.ttf', format: 'ttf' },
  archive: { file: 'fixture.zip', format: 'zip' },
};

/**
 * Targets this input is refused for, rightly, where another input of its format converts: the
 * fixture's JSON is a list of records (for csv and xlsx), and TOML needs a table on top.
 */
const REFUSED_FOR_THIS_INPUT: Readonly<Record<string, string>> = { 'json -> toml': 'UNSUPPORTED_CONVERSION' };

/**
 * Offered targets found not to work yet, each with why: the test keeps them failing on purpose,
 * so that whoever fixes one removes it here (and one that starts failing anew is caught).
 */
const NOT_YET_WORKING: Readonly<Record<string, string>> = {
  // json -> xlsx (exceljs) -> xmlss: LibreOffice's Excel 2003 XML export (an XSLT filter) fails
  // on the workbook exceljs writes ("numberColumnsRepeated", a write error); from fixture.xlsx it works.
  'json -> xmlss': 'CONVERSION_FAILED',
};

/** Kindle formats compress their text (PalmDoc): their header is what a reader checks first. */
const MOBI_FORMATS = new Set(['mobi', 'azw3']);

/** What `result` (of format `target`, from `source`) lacks of the input's content; undefined when nothing. */
async function missingContent(result: string, target: string, source: Source): Promise<string | undefined> {
  const family = getFormat(target)?.family;
  if (family === 'audio') {
    const audio = (await mediaStreams(result)).find((stream) => stream.kind === 'audio');
    return audio && audio.packets > 0 ? undefined : 'no audio packets (ffprobe)';
  }
  if (family === 'video') {
    const video = (await mediaStreams(result)).find((stream) => stream.kind === 'video');
    return video && video.packets > 0 ? undefined : 'no video frames (ffprobe)';
  }
  if (family === 'font') {
    return (await fontFamily(result)) === (await fontFamily(fixture(source.file)))
      ? undefined
      : 'another font family (fc-scan)';
  }
  if (family === 'archive') {
    const [entries, expected] = await Promise.all([
      archiveEntries(result, target),
      archiveEntries(fixture(source.file), source.format),
    ]);
    return entries.length > 0 && entries.join() === expected.join()
      ? undefined
      : `entries ${entries.join()} (tar)`;
  }
  if (target === 'svg' || target === 'svgz') {
    return /<svg[\s>]/.test(await svgText(result)) &&
      /<(path|image|use|text)[\s>]/.test(await svgText(result))
      ? undefined
      : 'an SVG without drawing';
  }
  if (target === 'eps' || target === 'ps') {
    return (await postscriptArea(result)) > 0 ? undefined : 'a blank PostScript page (gs bbox)';
  }
  if (family === 'image') return (await pictureSize(result)) ? undefined : 'no picture (identify, ffprobe)';
  if (target === 'pdf') {
    if ((await pdfPages(result)) < 1) return 'no pages (pdfinfo)';
    // A PDF of a picture holds the picture, not its words.
    if (getFormat(source.format)?.family === 'image' || !source.words) return undefined;
  } else if (MOBI_FORMATS.has(target)) {
    return (await readFile(result)).subarray(60, 68).toString('latin1') === 'BOOKMOBI'
      ? undefined
      : 'no MOBI header';
  }
  if (!source.words) return `a ${target} from a ${source.format}, which holds no words`;
  return source.words.test(await wordsOf(result, target)) ? undefined : `not the words ${source.words}`;
}

/** Converts `source` to each of `targets`, two at a time; the targets whose result lacks the content. */
async function convertToEach(
  converter: FileConverter,
  source: Source,
  targets: readonly string[],
): Promise<string[]> {
  const dir = await tempDir('fileconv-every-target-');
  const queue = [...targets];
  const failures: string[] = [];
  const worker = async () => {
    for (let target = queue.shift(); target !== undefined; target = queue.shift()) {
      const result = join(dir, `result.${target}`);
      try {
        await converter.convertFile(fixture(source.file), result, { to: target });
        const missing = await missingContent(result, target, source);
        if (missing) failures.push(`${source.format} -> ${target}: ${missing}`);
      } catch (error) {
        const { code, message } = error as { code?: string; message?: string };
        if (code !== undefined && REFUSED_FOR_THIS_INPUT[`${source.format} -> ${target}`] === code) continue;
        failures.push(`${source.format} -> ${target}: ${code} ${message?.split('\n')[0]}`);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return failures.sort();
}

// It needs every engine at once (LibreOffice, Calibre, ffmpeg, Chromium, tesseract, ...), and
// minutes: it runs where CI does, with FILECONV_REQUIRE_ENGINES=1.
describe.runIf(ENGINES_REQUIRED)('every target offered carries the content', () => {
  let converter: FileConverter;
  let offered: Map<string, readonly string[]>;

  beforeAll(async () => {
    converter = createConverter({ converters: defaultConverters() });
    offered = new Map((await converter.formats()).map((format) => [format.name, format.targets]));
  });
  afterAll(() => converter.close());

  for (const [family, source] of Object.entries(SOURCES)) {
    it(`from ${family} (${source.format})`, async () => {
      const targets = offered.get(source.format) ?? [];
      expect(targets.length, `${source.format} is offered no target`).toBeGreaterThan(0);
      const failures = await convertToEach(converter, source, targets);
      const pair = (failure: string) => failure.slice(0, failure.indexOf(':'));
      expect(failures.filter((failure) => !NOT_YET_WORKING[pair(failure)])).toEqual([]);
      expect(failures.filter((failure) => NOT_YET_WORKING[pair(failure)]).map(pair)).toEqual(
        Object.keys(NOT_YET_WORKING).filter((known) => known.startsWith(`${source.format} -> `)),
      );
    });
  }
});
