/**
 * Hostile and broken inputs, made on the fly, for testing that converters and hosts refuse them
 * cleanly. Each returns the bytes and the error code fileconv answers with.
 */
import { crc32 } from 'node:zlib';
import type { ErrorCode } from '../core/errors.js';

export interface BadInput {
  /** What it is, for test names. */
  name: string;
  /** File name the client would send. */
  fileName: string;
  bytes: Uint8Array;
  /** The code a conversion of it to `target` must fail with. */
  code: ErrorCode;
  /** A target to try. */
  target: string;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([length, typeAndData, crc]);
}

/**
 * A structurally valid PNG whose header claims `width` x `height` pixels while holding almost no
 * data: a decompression bomb that must be refused from its header, before any decoding.
 */
export function pngClaiming(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // A tiny zlib stream (one empty stored block), far too short for the claimed size.
  const idat = Buffer.from([0x78, 0x01, 0x01, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01]);
  return Buffer.concat([
    signature,
    pngChunk('IHDR', header),
    pngChunk('IDAT', idat),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

/** The first `fraction` of a file's bytes: a download or upload cut short. */
export function truncated(bytes: Uint8Array, fraction = 0.5): Uint8Array {
  return bytes.subarray(0, Math.max(1, Math.floor(bytes.length * fraction)));
}

/** An SVG that tries to read a URL, a local file and an external entity. */
export function svgWithExternalReferences(kind: 'url' | 'file' | 'entity' | 'css' = 'url'): Buffer {
  const bodies = {
    url: '<image href="http://127.0.0.1:9/tracker.png" width="10" height="10"/>',
    file: '<image xlink:href="file:///etc/passwd" width="10" height="10"/>',
    entity: '<text x="0" y="10">&secret;</text>',
    css: '<style>@import url("http://127.0.0.1:9/x.css"); rect { fill: url(http://127.0.0.1:9/p.svg#g) }</style>',
  } as const;
  const doctype =
    kind === 'entity' ? '<!DOCTYPE svg [<!ENTITY secret SYSTEM "file:///etc/hostname">]>\n' : '';
  return Buffer.from(
    `<?xml version="1.0"?>\n${doctype}<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">${bodies[kind]}<rect width="10" height="10"/></svg>\n`,
  );
}

/**
 * The standard hostile inputs for an image converter. `jpeg` must be real JPEG bytes
 * (fixtures/fixture.jpg will do).
 */
export function badImageInputs(jpeg: Uint8Array): BadInput[] {
  return [
    {
      name: 'truncated JPEG',
      fileName: 'cut.jpg',
      bytes: truncated(jpeg),
      code: 'CORRUPT_INPUT',
      target: 'png',
    },
    {
      name: 'text named .png',
      fileName: 'notes.png',
      bytes: Buffer.from('just some text\n'.repeat(20)),
      code: 'CONTENT_MISMATCH',
      target: 'jpg',
    },
    {
      name: 'PNG claiming 50000 x 50000 pixels',
      fileName: 'bomb.png',
      bytes: pngClaiming(50_000, 50_000),
      code: 'INPUT_LIMIT_EXCEEDED',
      target: 'jpg',
    },
    {
      name: 'SVG referencing a URL',
      fileName: 'url.svg',
      bytes: svgWithExternalReferences('url'),
      code: 'UNSAFE_INPUT',
      target: 'png',
    },
    {
      name: 'SVG referencing a local file',
      fileName: 'file.svg',
      bytes: svgWithExternalReferences('file'),
      code: 'UNSAFE_INPUT',
      target: 'png',
    },
    {
      name: 'SVG with an external entity',
      fileName: 'entity.svg',
      bytes: svgWithExternalReferences('entity'),
      code: 'UNSAFE_INPUT',
      target: 'png',
    },
    {
      name: 'empty file',
      fileName: 'empty.png',
      bytes: new Uint8Array(0),
      code: 'CORRUPT_INPUT',
      target: 'jpg',
    },
  ];
}
