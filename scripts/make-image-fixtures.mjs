// Regenerates the small image fixtures in fixtures/ (run from the repository root:
// `node scripts/make-image-fixtures.mjs`). HEIC/HEIF need Debian's libheif-examples (heif-enc).
// The committed files are what tests use; this script only documents how they were made.
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';

const W = 64;
const H = 48;
const raw = Buffer.alloc(W * H * 4);
for (let y = 0; y < H; y++) {
  for (let x = 0; x < W; x++) {
    const i = (y * W + x) * 4;
    raw[i] = Math.round((255 * x) / W);
    raw[i + 1] = Math.round((255 * y) / H);
    raw[i + 2] = 128;
    raw[i + 3] = x < 8 && y < 8 ? 0 : 255; // a transparent corner, to exercise alpha handling
  }
}
const base = sharp(raw, { raw: { width: W, height: H, channels: 4 } });
await base.clone().png().toFile('fixtures/fixture.png');
await base.clone().flatten({ background: '#ffffff' }).jpeg({ quality: 80 }).toFile('fixtures/fixture.jpg');
await base.clone().webp({ quality: 80 }).toFile('fixtures/fixture.webp');
await base.clone().avif({ quality: 50, effort: 2 }).toFile('fixtures/fixture.avif');
await base.clone().tiff({ compression: 'lzw' }).toFile('fixtures/fixture.tiff');

// Animated: three 32x24 frames, red, green, blue.
const frames = [
  [255, 0, 0],
  [0, 255, 0],
  [0, 0, 255],
].map(([r, g, b]) =>
  sharp({ create: { width: 32, height: 24, channels: 4, background: { r, g, b, alpha: 1 } } }).png(),
);
const frameBuffers = await Promise.all(frames.map((f) => f.toBuffer()));
const animated = () => sharp(frameBuffers, { join: { animated: true } });
await animated().gif({ loop: 0, delay: 200 }).toFile('fixtures/fixture.gif');
await animated().webp({ loop: 0, delay: 200 }).toFile('fixtures/fixture-animated.webp');

// HEIC (HEVC-coded, brand heic) and HEIF (same codec; the registry keeps both names).
execFileSync('heif-enc', ['-q', '50', '-o', 'fixtures/fixture.heic', 'fixtures/fixture.png']);
execFileSync('cp', ['fixtures/fixture.heic', 'fixtures/fixture.heif']);

// A 12 MP HEIC whose decode takes long enough (~0.5 s) to test the decoder's worker thread
// (responsiveness, abort). A smooth picture, so the file stays small (33 KB) at 4000x3000.
const [LW, LH] = [4000, 3000];
const large = `<svg xmlns="http://www.w3.org/2000/svg" width="${LW}" height="${LH}"><defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="#204080"/><stop offset="1" stop-color="#e0a040"/></linearGradient></defs><rect width="${LW}" height="${LH}" fill="url(#g)"/><circle cx="${LW / 2}" cy="${LH / 2}" r="${LH / 3}" fill="#fff" opacity="0.5"/></svg>`;
await sharp(Buffer.from(large)).png().toFile('/tmp/fixture-12mp.png');
execFileSync('heif-enc', ['-q', '30', '-o', 'fixtures/fixture-12mp.heic', '/tmp/fixture-12mp.png']);

await sharp(raw, { raw: { width: W, height: H, channels: 4 } })
  .png()
  .toBuffer()
  .then((png) => console.log(`made fixtures from a ${W}x${H} source (${png.length} bytes as PNG)`));

// BMP and ICO come from Debian's ImageMagick, an independent writer to test our decoder against:
//   convert fixtures/fixture.png -alpha off BMP3:fixtures/fixture.bmp
//   convert fixtures/fixture.png -define icon:auto-resize=32,16 fixtures/fixture.ico
// fixtures/fixture.svg is written by hand.

// BMP variants for the decoder (test/converters/bmp-decode.test.ts): an odd 15x11 crop, so every
// row needs padding, in the encodings ImageMagick writes, each beside ImageMagick's own decoding
// of it as a PNG (the reference the test compares with). Top-down, RLE4 and a gap before the
// pixel data are crafted by the test itself, since ImageMagick writes none of them.
execFileSync('mkdir', ['-p', 'fixtures/bmp']);
const crop = ['fixtures/fixture.png', '-crop', '15x11+0+0', '+repage'];
const opaque = [...crop, '-alpha', 'off'];
const variants = {
  rgb24: [...opaque, 'BMP3:fixtures/bmp/rgb24.bmp'],
  argb32: [...crop, 'BMP:fixtures/bmp/argb32.bmp'], // v5 header, BI_BITFIELDS with alpha
  rgb565: [...opaque, '-define', 'bmp:subtype=RGB565', 'BMP:fixtures/bmp/rgb565.bmp'],
  pal8: [...opaque, '-type', 'Palette', '-compress', 'None', 'BMP3:fixtures/bmp/pal8.bmp'],
  rle8: [...opaque, '-type', 'Palette', '-compress', 'RLE', 'BMP3:fixtures/bmp/rle8.bmp'],
  pal4: [...opaque, '-colors', '16', '-type', 'Palette', '-compress', 'None', 'BMP3:fixtures/bmp/pal4.bmp'],
  pal1: [...opaque, '-monochrome', 'BMP3:fixtures/bmp/pal1.bmp'],
};
for (const [name, args] of Object.entries(variants)) {
  execFileSync('convert', args);
  execFileSync('convert', [`fixtures/bmp/${name}.bmp`, `PNG32:fixtures/bmp/${name}.png`]);
}
