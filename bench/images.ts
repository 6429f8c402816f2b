/**
 * Image benchmark: a 12 MP JPEG -> WebP through the engine's in-process API (convertFile), against
 * sharp called directly with the same settings the converter uses by default, in the same run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { createSharpConverter, IMAGE_DEFAULTS } from '../src/converters/sharp/index.js';
import { createEngine } from '../src/index.js';
import { compare, recordTarget, report } from './stats.js';

/**
 * A photo-like image (default 4000 x 3000): smooth blobs of colour with fine grain, not pure
 * noise. Written as JPEG (quality 90) unless `path` ends in .png.
 */
export async function makePhoto(path: string, width = 4000, height = 3000): Promise<void> {
  const blobs = await sharp({
    create: {
      width: Math.round(width / 10),
      height: Math.round(height / 10),
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
  const grain = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 8 },
    },
  })
    .png()
    .toBuffer();
  const photo = sharp(blobs)
    .resize(width, height, { kernel: 'cubic' })
    .composite([{ input: grain, blend: 'overlay' }]);
  await (path.endsWith('.png') ? photo.png() : photo.jpeg({ quality: 90 })).toFile(path);
}

export async function benchImages(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-'));
  try {
    const input = join(dir, 'photo-12mp.jpg');
    await makePhoto(input);
    const maxPixels = 100_000_000;
    const engine = createEngine({ converters: [createSharpConverter()], maxPixels, tempDir: dir });

    const direct = () =>
      sharp(input, { failOn: 'error', limitInputPixels: maxPixels, autoOrient: true })
        .webp({ quality: IMAGE_DEFAULTS.quality.webp, effort: IMAGE_DEFAULTS.effort.webp })
        .toFile(join(dir, 'direct.webp'));
    const viaEngine = () => engine.convertFile(input, join(dir, 'engine.webp'));

    const result = await compare(rounds, direct, viaEngine);
    report('12 MP JPEG -> WebP (q80, effort 4)', result, 'sharp');
    recordTarget('convertFile 12 MP JPEG -> WebP vs sharp', result.ratio, 0.95);
    const [a, b] = await Promise.all([
      sharp(join(dir, 'direct.webp')).metadata(),
      sharp(join(dir, 'engine.webp')).metadata(),
    ]);
    if (a.width !== b.width || a.format !== b.format)
      throw new Error('benchmark outputs differ: not the same work');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
