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

await sharp(raw, { raw: { width: W, height: H, channels: 4 } })
  .png()
  .toBuffer()
  .then((png) => console.log(`made fixtures from a ${W}x${H} source (${png.length} bytes as PNG)`));

// BMP and ICO come from Debian's ImageMagick (sharp writes neither):
//   convert fixtures/fixture.png -alpha off BMP3:fixtures/fixture.bmp
//   convert fixtures/fixture.png -define icon:auto-resize=32,16 fixtures/fixture.ico
// fixtures/fixture.svg is written by hand.
