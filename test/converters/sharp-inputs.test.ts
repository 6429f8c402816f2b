/**
 * Hostile and broken inputs to the sharp converter: each is refused with its stable code, before
 * decoding where the design says so, with nothing fetched, read or left behind.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHeic } from '../../src/converters/sharp/heic.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import type { ErrorCode } from '../../src/core/errors.js';
import { mapSharpError } from '../../src/kit/image/sharp-errors.js';
import { pngClaiming } from '../../src/testing/bad-inputs.js';
import { frameBombGif } from '../hostile/frame-bomb-gif.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  type Workspace,
  workspace,
} from './sharp-helpers.js';

const converter = withOptionsParsed(createSharpConverter());

async function convertBytes(ws: Workspace, bytes: Uint8Array, from: string, to: string, maxPixels?: number) {
  const inputPath = join(ws.inputs, `input.${from}`);
  await writeFile(inputPath, bytes);
  const limits = maxPixels === undefined ? undefined : { maxPixels };
  return converter.convert(context(ws, from, to, { inputPath, ...(limits ? { limits } : {}) }));
}

async function expectRefused(
  bytes: Uint8Array,
  from: string,
  to: string,
  code: ErrorCode,
  maxPixels?: number,
) {
  const ws = await workspace();
  const error = await expectCode(convertBytes(ws, bytes, from, to, maxPixels), code);
  await expectNoLeftovers(ws);
  return error;
}

describe('pixel limits', () => {
  it('refuses a PNG claiming 50000x50000 from its header, fast', async () => {
    const bomb = pngClaiming(50_000, 50_000);
    expect((await sharp(bomb, { limitInputPixels: false }).metadata()).width).toBe(50_000); // the crafted file is a valid PNG header
    const started = Date.now();
    const error = await expectRefused(bomb, 'png', 'jpg', 'INPUT_LIMIT_EXCEEDED');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.details).toMatchObject({ width: 50_000, height: 50_000 });
  });

  it.each(['png', 'jpg', 'svg', 'heic', 'avif'])('applies ctx.limits.maxPixels to %s input', async (from) => {
    await expectRefused(
      await readFile(fixture(`fixture.${from}`)),
      from,
      'webp',
      'INPUT_LIMIT_EXCEEDED',
      1000,
    );
  });

  it('limits an animation per frame (frames are streamed, not held at once), and its whole work by its file size', async () => {
    // fixture.gif: 3 frames of 32x24 = 2304 pixels in all, 768 per frame.
    const gif = await readFile(fixture('fixture.gif'));
    const ws = await workspace();
    // Above the limit in all, within it per frame: a long screencast converts (it was refused).
    await convertBytes(ws, gif, 'gif', 'webp', 2000);
    expect((await sharp(join(ws.outputs, 'out.webp'), { animated: true }).metadata()).pages).toBe(3);
    await convertBytes(ws, gif, 'gif', 'png', 2000);
    // A frame above the limit is still refused, animated or not.
    await expectRefused(gif, 'gif', 'webp', 'INPUT_LIMIT_EXCEEDED', 500);
  });

  it("counts a GIF's frames at its logical screen size: a frame bomb is refused, not shrunk to 1x1", async () => {
    // 3000 frames of one pixel on a 4000x4000 screen: libvips alone reports 1x1 frames.
    // 48 billion pixels from 69 KB: beyond what a file of its size may cost (ffmpeg's rule).
    const error = await expectRefused(frameBombGif(3000), 'gif', 'webp', 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ width: 4000, height: 4000, frames: 3000 });
    expect(error.message).toMatch(/more decoding than a file of its size may cost/);
    // Even its first frame alone is a 16-megapixel picture: within the default limit, but not 1000.
    await expectRefused(frameBombGif(3000), 'gif', 'png', 'INPUT_LIMIT_EXCEEDED', 1000);
  });

  it('checks HEIC dimensions before decoding pixels', async () => {
    const bytes = await readFile(fixture('fixture.heic'));
    await expect(decodeHeic(bytes, 100)).rejects.toMatchObject({ code: 'INPUT_LIMIT_EXCEEDED' });
    const image = await decodeHeic(bytes, 10_000);
    expect([image.width, image.height, image.data.length]).toEqual([64, 48, 64 * 48 * 4]);
  });
});

describe('damaged and foreign input', () => {
  it('refuses an empty file', async () => {
    await expectRefused(Buffer.alloc(0), 'png', 'jpg', 'CORRUPT_INPUT');
  });

  it('refuses random bytes and plain text', async () => {
    const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    await expectRefused(random, 'jpg', 'png', 'CORRUPT_INPUT');
    await expectRefused(
      Buffer.from('hello, this is not an image\n'.repeat(20)),
      'png',
      'webp',
      'CORRUPT_INPUT',
    );
    await expectRefused(Buffer.from('just text, no markup'), 'svg', 'png', 'CORRUPT_INPUT');
  });

  it('refuses truncated files', async () => {
    const noise = { type: 'gaussian', mean: 128, sigma: 30 } as const;
    const image = sharp({ create: { width: 640, height: 480, channels: 3, background: '#808080', noise } });
    const jpeg = await image.clone().jpeg().toBuffer();
    const png = await image.clone().png().toBuffer();
    const webp = await image.clone().webp().toBuffer();
    await expectRefused(jpeg.subarray(0, jpeg.length >> 1), 'jpg', 'png', 'CORRUPT_INPUT');
    await expectRefused(png.subarray(0, png.length >> 1), 'png', 'jpg', 'CORRUPT_INPUT');
    await expectRefused(webp.subarray(0, webp.length >> 1), 'webp', 'png', 'CORRUPT_INPUT');
    const small = await readFile(fixture('fixture.jpg'));
    await expectRefused(small.subarray(0, small.length >> 1), 'jpg', 'png', 'CORRUPT_INPUT');
    const heic = await readFile(fixture('fixture.heic'));
    await expectRefused(heic.subarray(0, heic.length >> 1), 'heic', 'png', 'CORRUPT_INPUT');
  });

  it('refuses a PNG whose chunk checksum (CRC) is wrong as CORRUPT_INPUT, naming the chunk', async () => {
    // libpng refuses a critical chunk with a wrong CRC and libvips said "Unknown error": a 500.
    const png = await readFile(fixture('fixture.png'));
    for (const type of ['IHDR', 'IDAT']) {
      const damaged = Buffer.from(png);
      const at = damaged.indexOf(type);
      const crcAt = at + 4 + damaged.readUInt32BE(at - 4);
      damaged[crcAt + 1]! ^= 0xff;
      const error = await expectRefused(damaged, 'png', 'webp', 'CORRUPT_INPUT');
      if (type === 'IHDR') expect(error.message).toMatch(/IHDR chunk's checksum \(CRC\)/);
    }
  });

  it('refuses formats outside its set even when libvips knows them', async () => {
    const ppm = Buffer.concat([Buffer.from('P6\n2 2\n255\n'), Buffer.alloc(12, 200)]);
    await expectRefused(ppm, 'png', 'jpg', 'CORRUPT_INPUT');
  });
});

describe('SVG references', () => {
  let server: Server;
  let hits = 0;
  let origin = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('<svg xmlns="http://www.w3.org/2000/svg"/>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const svg = (body: string, prolog = '') =>
    `<?xml version="1.0" encoding="UTF-8"?>\n${prolog}<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">${body}<rect width="20" height="20" fill="#00f"/></svg>\n`;

  const hostile: [string, () => string | Buffer][] = [
    ['an http image', () => svg(`<image href="${origin}/a.png" width="5" height="5"/>`)],
    ['a file: image', () => svg('<image xlink:href="file:///etc/passwd" width="5" height="5"/>')],
    ['a relative file', () => svg('<image href="../secret.png" width="5" height="5"/>')],
    ['a CSS url()', () => svg(`<rect width="5" height="5" style="fill: url(${origin}/p.svg#g)"/>`)],
    ['a presentation url()', () => svg(`<rect width="5" height="5" fill="url('${origin}/p.svg#g')"/>`)],
    ['an @import', () => svg(`<style>@import "${origin}/x.css";</style>`)],
    ['an external stylesheet', () => `<?xml-stylesheet href="${origin}/x.css"?>\n${svg('')}`],
    [
      'an entity',
      () => svg('<text>&x;</text>', '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'),
    ],
    ['a SYSTEM doctype', () => svg('', `<!DOCTYPE svg SYSTEM "${origin}/svg.dtd">\n`)],
    [
      'an XInclude',
      () =>
        svg(
          '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/>',
        ),
    ],
    ['a character-referenced URL', () => svg(`<image href="&#104;ttp${origin.slice(4)}/a.png"/>`)],
    ['a CSS-escaped url()', () => svg(`<style>rect { fill: u\\72l(${origin}/p.svg#g) }</style>`)],
    [
      'a reference hidden behind a quote in a comment',
      () => svg(`<!-- href="# --><image href="${origin}/a.png"/>`),
    ],
    ['an unterminated url()', () => svg(`<style>rect { fill: url(${origin}/p.svg`)],
    ['gzip (svgz)', () => gzipSync(svg(`<image href="${origin}/a.png"/>`))],
    [
      'an SVG in a data: URL that references a URL',
      () => {
        const inner = Buffer.from(svg(`<image href="${origin}/a.png"/>`)).toString('base64');
        return svg(`<image href="data:image/png;base64,${inner}" width="5" height="5"/>`);
      },
    ],
    ['a UTF-16 encoding', () => svg('').replace('UTF-8', 'UTF-16')],
    // Links may point anywhere; what they wrap may not, and an escaped "<a" cannot pass for one.
    ['an image inside a link', () => svg(`<a href="page.html"><image href="${origin}/a.png"/></a>`)],
    ['an escaped link tag in a value', () => svg(`<image title="&lt;a " href="${origin}/a.png"/>`)],
    ['an src on a link', () => svg(`<a src="${origin}/a.png"><rect width="2" height="2"/></a>`)],
  ];

  it.each(hostile)('refuses %s with UNSAFE_INPUT and fetches nothing', async (_name, make) => {
    const bytes = make();
    await expectRefused(Buffer.from(bytes), 'svg', 'png', 'UNSAFE_INPUT');
    // Declared as another format, the bytes are still recognised as SVG and vetted.
    await expectRefused(Buffer.from(bytes), 'png', 'png', 'UNSAFE_INPUT');
    expect(hits).toBe(0);
  });

  it('renders an SVG with hyperlinks (doxygen, graphviz), which are never fetched', async () => {
    const body = `<a xlink:href="classes.html" target="_top"><rect width="5" height="5"/></a><svg:a href="${origin}/page.html"><circle r="2"/></svg:a><a href="file:///etc/passwd"><text y="10">x</text></a>`;
    const ws = await workspace();
    await convertBytes(
      ws,
      Buffer.from(svg(body).replace('<svg ', '<svg xmlns:svg="http://www.w3.org/2000/svg" ')),
      'svg',
      'png',
    );
    expect((await sharp(join(ws.outputs, 'out.png')).metadata()).width).toBe(20);
    expect(hits).toBe(0);
  });

  it('renders fragment references, data: URLs and a plain public DOCTYPE', async () => {
    const dot = (
      await sharp({ create: { width: 2, height: 2, channels: 3, background: 'red' } })
        .png()
        .toBuffer()
    ).toString('base64');
    const doctype =
      '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n';
    const icon = Buffer.from(svg('<circle r="3" fill="url(#g)"/>')).toString('base64');
    const body = `<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs><rect width="5" height="5" fill="url(#g)"/><image href="data:image/png;base64,${dot}" width="5" height="5"/><use xlink:href="#g"/><image href="data:image/svg+xml;base64,${icon}" width="5" height="5"/>`;
    for (const bytes of [svg(body, doctype), gzipSync(svg(body))]) {
      const ws = await workspace();
      await convertBytes(ws, Buffer.from(bytes), 'svg', 'png');
      expect((await sharp(join(ws.outputs, 'out.png')).metadata()).width).toBe(20);
    }
    expect(hits).toBe(0);
  });
});

describe('a truncated image among concurrent conversions', () => {
  it('is CORRUPT_INPUT every time, never the write failure libvips reports in its place', async () => {
    // Found by the soak: with other conversions running, one truncated JPEG in four failed as
    // "vips2png: unable to write to target" (CONVERSION_FAILED, a 500) instead.
    const whole = await sharp({
      create: {
        width: 1600,
        height: 1200,
        channels: 3,
        background: '#7a8',
        noise: { type: 'gaussian', mean: 120, sigma: 40 },
      },
    })
      .jpeg({ quality: 85 })
      .toBuffer();
    const truncated = whole.subarray(0, Math.floor(whole.length * 0.4));
    const codes: string[] = [];
    for (let round = 0; round < 4; round++) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          const ws = await workspace();
          const outcome = convertBytes(ws, index % 2 ? truncated : whole, 'jpg', 'png').then(
            () => 'converted',
            (error: { code?: string }) => error.code ?? 'thrown',
          );
          codes.push(`${index % 2 ? 'truncated' : 'whole'} ${await outcome}`);
        }),
      );
    }
    expect(
      codes
        .filter((code) => code.startsWith('truncated'))
        .every((code) => code === 'truncated CORRUPT_INPUT'),
      codes.join(),
    ).toBe(true);
    expect(codes.filter((code) => code === 'whole converted')).toHaveLength(16);
  });
});

describe('error mapping', () => {
  it.each([
    ['Input file contains unsupported image format', 'CORRUPT_INPUT'],
    ['VipsJpeg: premature end of JPEG image', 'CORRUPT_INPUT'],
    ['Input image exceeds pixel limit', 'INPUT_LIMIT_EXCEEDED'],
    ['Processed image is too large for the WebP format', 'INPUT_LIMIT_EXCEEDED'],
    ['timeout: 12% complete', 'CONVERSION_TIMEOUT'],
    ['Input file is missing: /srv/data/x.png', 'INTERNAL'],
    ['vips2webp: unable to write to target', 'CONVERSION_FAILED'],
    ['VipsForeignSave: write failed: No space left on device', 'NO_SPACE'],
  ] as const)('maps "%s" to %s, keeping the cause and hiding paths', (message, code) => {
    const cause = new Error(message);
    const mapped = mapSharpError(cause);
    expect(mapped.code).toBe(code);
    expect(mapped.cause).toBe(cause);
    expect(mapped.message).not.toContain('/srv/data');
  });
});
