/**
 * The converter conformance suite (what `fileconv/testing` promises hosts) run against the four
 * raster tool converters and libheif's HEIC writer, each on one of its own fixtures and, for the
 * writers, back again.
 */
import { it } from 'vitest';
import {
  createFfmpegImageConverter,
  createImageMagickConverter,
  createLibheifConverter,
  createLibjxlConverter,
  createLibrawConverter,
} from '../../src/converters/raster/index.js';
import { fixturePath, testConverter } from '../../src/testing/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { RASTER_ENGINES_AVAILABLE, RASTER_INSTALL, ROSE } from './raster-helpers.js';

const BUILT_IN = ['sharp', 'ffmpeg', 'libreoffice', 'exceljs', 'mammoth', 'pdf', 'text'];

if (RASTER_ENGINES_AVAILABLE) {
  testConverter('imagemagick', () => createImageMagickConverter(), {
    otherConverters: BUILT_IN,
    samples: [
      { from: 'psd', to: 'png', input: fixturePath('psd') },
      { from: 'png', to: 'tga', input: ROSE },
    ],
  });
  testConverter('libjxl', () => createLibjxlConverter(), {
    otherConverters: BUILT_IN,
    samples: [
      { from: 'jxl', to: 'png', input: fixturePath('jxl') },
      { from: 'jpg', to: 'jxl', input: fixturePath('jpg') },
    ],
  });
  testConverter('ffmpeg-image', () => createFfmpegImageConverter(), {
    otherConverters: BUILT_IN,
    samples: [
      { from: 'qoi', to: 'png', input: fixturePath('qoi') },
      { from: 'png', to: 'exr', input: ROSE },
    ],
  });
  testConverter('libraw', () => createLibrawConverter(), {
    otherConverters: BUILT_IN,
    samples: [{ from: 'dng', to: 'tiff', input: fixturePath('dng') }],
  });
  testConverter('libheif', () => createLibheifConverter(), {
    otherConverters: BUILT_IN,
    samples: [
      { from: 'png', to: 'heic', input: ROSE },
      { from: 'jpg', to: 'heic', input: fixturePath('jpg') },
    ],
  });
} else {
  // A failure under FILECONV_REQUIRE_ENGINES=1 (CI), a named skip on a laptop without them.
  describeWithEngine('raster tools', false, RASTER_INSTALL, 'raster converter conformance', () => {
    it('needs the engines', () => {});
  });
}
