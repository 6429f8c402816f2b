/**
 * An empty file is refused one way wherever it enters (core/file-size.ts): CORRUPT_INPUT, "The
 * file is empty.", details { reason: 'empty' }. Through the direct API (a path, a buffer), Flow
 * B's upload, Flow A's grant and a tus creation (a declared size of 0), and by the converters
 * that guard a direct call themselves.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createArchiveConverter } from '../../src/converters/archive/index.js';
import { createCalibreConverter } from '../../src/converters/calibre/index.js';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import { createLibreOfficeConverter } from '../../src/converters/libreoffice/index.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { createSubtitleConverter } from '../../src/converters/subtitles/index.js';
import { FileconvError } from '../../src/core/errors.js';
import type { Converter } from '../../src/core/ports/index.js';
import { createConverter } from '../../src/index.js';
import { createFakeConverter } from '../../src/testing/fake-converter.js';
import { withOptionsParsed } from '../../src/testing/parsed-options.js';
import { tempDir } from '../helpers/temp.js';
import { call, multipart, startServer } from './harness.js';
import { createTusUpload } from './tus-helpers.js';

const EMPTY = { code: 'CORRUPT_INPUT', message: 'The file is empty.', details: { reason: 'empty' } };

/** What `promise` rejected with, as a client reads it. */
async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await promise.then(
    () => expect.unreachable('it was accepted'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileconvError);
  const { code, message, details } = error as FileconvError;
  return { code, message, details };
}

describe('an empty file, one refusal', () => {
  it('through the direct API: a file and a buffer', async () => {
    const dir = await tempDir();
    const input = join(dir, 'empty.png');
    await writeFile(input, '');
    const files = createConverter({ converters: [createSharpConverter()] });
    expect(await rejection(files.convertFile(input, join(dir, 'out.jpg')))).toEqual(EMPTY);
    expect(await rejection(files.convertBuffer(new Uint8Array(0), { to: 'jpg' }))).toEqual(EMPTY);
    await files.close();
  });

  it('over HTTP: Flow B, Flow A and tus, with 422', async () => {
    const server = await startServer();
    const uploaded = await call(server, 'POST', '/api/upload', {
      body: multipart(new Uint8Array(0), 'e.png'),
    });
    const granted = await call(server, 'POST', '/api/files/get-upload-url', {
      json: { fileName: 'e.png', fileSize: 0, contentType: 'image/png' },
    });
    const resumable = (await createTusUpload(server, 0)).response;
    for (const [flow, response] of [
      ['Flow B', uploaded],
      ['Flow A', granted],
      ['tus', resumable],
    ] as const) {
      expect([flow, response.status, response.body.error]).toEqual([flow, 422, EMPTY]);
    }
    expect(await server.fileRecords()).toEqual([]);
  });

  it('by converters called directly, which guard an empty input themselves', async () => {
    const dir = await tempDir();
    const cases: [Converter, string, string][] = [
      [createSharpConverter(), 'png', 'jpg'],
      [createFfmpegConverter({ engine: 'native' }), 'mp4', 'webm'],
      [createSubtitleConverter(), 'srt', 'vtt'],
      [createCalibreConverter(), 'epub', 'pdf'],
      [createArchiveConverter(), 'zip', 'tar'],
      [createLibreOfficeConverter(), 'docx', 'pdf'],
      [createFakeConverter(), 'txt', 'md'],
    ];
    for (const [converter, from, to] of cases) {
      const inputPath = join(dir, `empty.${from}`);
      await writeFile(inputPath, '');
      const refused = await rejection(
        withOptionsParsed(converter).convert({
          inputPath,
          outputPath: join(dir, `${converter.name}.${to}`),
          from,
          to,
          options: {},
          tempDir: dir,
          signal: new AbortController().signal,
          onProgress: () => {},
          limits: { maxPixels: 1e8 },
        }),
      );
      expect([converter.name, refused]).toEqual([converter.name, EMPTY]);
      await converter.close?.();
    }
  });
});
