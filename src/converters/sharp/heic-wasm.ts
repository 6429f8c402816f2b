/**
 * HEIC/HEIF (HEVC-coded) decoding through heic-decode, i.e. libheif compiled to WebAssembly:
 * sharp's prebuilt libvips reads the HEIF container but has no HEVC decoder.
 *
 * This runs synchronous WebAssembly for the whole decode (about a second for a 12 MP photo), so
 * it must not run on the main thread of a service: heic-worker.ts runs it in a worker thread and
 * heic.ts is the API the converter calls. The image size is checked from the container before any
 * pixel is decoded, because the decoder allocates the whole RGBA frame at once.
 */
import { FileconvError, toFileconvError } from '../../core/errors.js';
import { loadHeicDecode } from '../../kit/libraries/sharp.js';

export interface RawImage {
  width: number;
  height: number;
  /** 4 channels, 8 bits each, row-major. */
  data: Uint8Array;
}

/** Decodes the first image of a HEIC/HEIF file to RGBA, refusing images above `maxPixels`. */
export async function decodeHeicInThisThread(bytes: Uint8Array, maxPixels: number): Promise<RawImage> {
  const heic = await loadHeicDecode();
  let images: Awaited<ReturnType<typeof heic.all>>;
  try {
    // Parses the container and creates image handles; no pixel is decoded yet.
    images = await heic.all({ buffer: bytes });
  } catch (error) {
    throw toFileconvError(error, 'CORRUPT_INPUT', 'The HEIC/HEIF file could not be read');
  }
  try {
    const first = images[0];
    if (!first) throw new FileconvError('CORRUPT_INPUT', 'The HEIC/HEIF file holds no image');
    if (first.width * first.height > maxPixels) {
      throw new FileconvError(
        'INPUT_LIMIT_EXCEEDED',
        `The image is ${first.width}x${first.height} pixels; the limit is ${maxPixels} pixels`,
        { details: { width: first.width, height: first.height, maxPixels } },
      );
    }
    const decoded = await first.decode().catch((error: unknown) => {
      throw toFileconvError(error, 'CORRUPT_INPUT', 'The HEIC/HEIF image data could not be decoded');
    });
    const { data } = decoded;
    return {
      width: decoded.width,
      height: decoded.height,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    };
  } finally {
    images.dispose(); // frees the WebAssembly-side handles
  }
}
