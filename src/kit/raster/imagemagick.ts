/**
 * Runs ImageMagick 6 (`convert`) the only way fileconv lets it run: under a policy of its own that
 * allows exactly the two coders one conversion needs (every other coder, every delegate program,
 * every filter and '@file' indirection refused, so no MVG, MSL, URL, TEXT or ephemeral coder can
 * be reached), with resource limits (memory, map, disk, time, and width/height from the pixel
 * limit), its temporary files inside the conversion's own folder, and the input read through an
 * explicit coder prefix (`psd:in.psd[0]`), so a file can never pick its own coder by its magic.
 *
 * The policy file is found through MAGICK_CONFIGURE_PATH, which ImageMagick searches before the
 * system's; a system policy can make it stricter, never looser (its coder rules only refuse).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import { runTool, toolError } from '../command-tools.js';

/** ImageMagick coder names for reading each format fileconv hands it. */
const READ_CODERS: Readonly<Record<FormatName, string>> = {
  jp2: 'JP2',
  psd: 'PSD',
  tga: 'TGA',
  pcx: 'PCX',
  // One netpbm reader for the three kinds: a .pnm may hold any of them.
  ppm: 'PNM',
  pgm: 'PNM',
  pbm: 'PNM',
  hdr: 'HDR',
  dds: 'DDS',
  sgi: 'SGI',
  xpm: 'XPM',
  pam: 'PAM',
  png: 'PNG',
  tiff: 'TIFF',
};

/** ImageMagick coder names for writing. */
const WRITE_CODERS: Readonly<Record<FormatName, string>> = {
  jp2: 'JP2',
  tga: 'TGA',
  pcx: 'PCX',
  ppm: 'PPM',
  pgm: 'PGM',
  pbm: 'PBM',
  hdr: 'HDR',
  dds: 'DDS',
  sgi: 'SGI',
  xpm: 'XPM',
  pam: 'PAM',
  png: 'PNG',
};

/** Seconds ImageMagick may spend on one image (its own 'time' resource; the run is also killed at 5 minutes). */
const TIME_LIMIT_SECONDS = 240;

export interface MagickRun {
  input: string;
  from: FormatName;
  output: string;
  to: FormatName;
  /** Holds the policy and ImageMagick's temporary files; removed by the caller. */
  workDir: string;
  maxPixels: number;
  signal: AbortSignal;
  /** JPEG 2000 quality, 1-100 (100, the default, is lossless). */
  quality?: number;
  /** Coder override for the input (a bare JPEG 2000 codestream is 'J2K', not 'JP2'). */
  readCoder?: string;
}

/** The policy.xml for one run: resource limits, and only `readCoder` readable and `writeCoder` writable. */
export function magickPolicy(readCoder: string, writeCoder: string, maxPixels: number): string {
  const limit = (name: string, value: string) =>
    `  <policy domain="resource" name="${name}" value="${value}"/>`;
  return [
    '<policymap>',
    limit('memory', '256MiB'),
    limit('map', '512MiB'),
    limit('disk', '1GiB'),
    limit('area', String(maxPixels)),
    limit('width', String(maxPixels)),
    limit('height', String(maxPixels)),
    limit('list-length', '16'),
    limit('time', String(TIME_LIMIT_SECONDS)),
    limit('thread', '2'),
    '  <policy domain="delegate" rights="none" pattern="*"/>',
    '  <policy domain="filter" rights="none" pattern="*"/>',
    '  <policy domain="path" rights="none" pattern="@*"/>',
    '  <policy domain="coder" rights="none" pattern="*"/>',
    readCoder === writeCoder
      ? `  <policy domain="coder" rights="read|write" pattern="${readCoder}"/>`
      : `  <policy domain="coder" rights="read" pattern="${readCoder}"/>\n  <policy domain="coder" rights="write" pattern="${writeCoder}"/>`,
    '</policymap>',
    '',
  ].join('\n');
}

/** Writer settings per target: what ImageMagick would otherwise guess. */
function writeArguments(to: FormatName, quality: number | undefined): string[] {
  switch (to) {
    case 'pgm':
      return ['-colorspace', 'Gray'];
    case 'pbm':
      return ['-colorspace', 'Gray', '-threshold', '50%'];
    case 'tga':
      // ImageMagick 6 labels the rows it writes bottom-up unless told the picture's orientation.
      return ['-orient', 'TopLeft'];
    case 'jp2':
      // Lossless (the reversible 5/3 wavelet): a PNG's pixels come back exactly.
      return ['-quality', String(quality ?? 100)];
    default:
      return [];
  }
}

/**
 * What a run adds to the environment: the policy's folder, searched before the system's, and the
 * folder for ImageMagick's temporary files (the run's own, removed with it).
 */
function magickEnvironment(workDir: string): Record<string, string> {
  return { MAGICK_CONFIGURE_PATH: workDir, MAGICK_TEMPORARY_PATH: workDir };
}

/** Converts the first image of `input` into `output`; FileconvError on failure. */
export async function runMagick(run: MagickRun): Promise<void> {
  const readCoder = run.readCoder ?? READ_CODERS[run.from];
  const writeCoder = WRITE_CODERS[run.to];
  if (readCoder === undefined || writeCoder === undefined) {
    throw new FileconvError('UNSUPPORTED_CONVERSION', `ImageMagick is not used for ${run.from} -> ${run.to}`);
  }
  await writeFile(join(run.workDir, 'policy.xml'), magickPolicy(readCoder, writeCoder, run.maxPixels));
  // '[0]': the first image only (a PSD's flattened composite, not its layers; a DDS's full size, not its mipmaps).
  // -auto-orient: ImageMagick 6 keeps a bottom-up TGA's (or a TIFF's) orientation as a label the
  // PNG writer ignores; applying it gives the picture right side up.
  const args = [
    `${readCoder}:${run.input}[0]`,
    '-auto-orient',
    ...writeArguments(run.to, run.quality),
    `${writeCoder}:${run.output}`,
  ];
  const outcome = await runTool('magick', args, {
    signal: run.signal,
    env: magickEnvironment(run.workDir),
    names: { [run.input]: `input.${run.from}`, [run.output]: `output.${run.to}` },
  });
  // ImageMagick exits 0 on warnings, but a corrupt-image warning means pixels were made up.
  const damaged = /CorruptImage|unexpected ?end-?of-?file|insufficient image data/i.test(outcome.stderr);
  if (outcome.code !== 0 || damaged) {
    // Decoding the user's file (anything but the PNG sharp made), or a reader's own complaint.
    const readFailed =
      run.from !== 'png' ||
      damaged ||
      /\/Read\w*Image|improper image header|no images defined/i.test(outcome.stderr);
    throw toolError('magick', outcome, `reading ${run.from} into ${run.to}`, readFailed);
  }
}
