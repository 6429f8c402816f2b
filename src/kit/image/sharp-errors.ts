/**
 * Maps what sharp (libvips) throws onto stable FileconvError codes. sharp's errors are plain
 * Errors whose only structure is the message text, so this is a table of message patterns,
 * checked in order; the original error is always kept as `cause`.
 */
import { type ErrorCode, FileconvError } from '../../core/errors.js';

const PATTERNS: readonly [RegExp, ErrorCode, string][] = [
  [/No space left on device|ENOSPC|Disk quota exceeded/i, 'NO_SPACE', 'The disk is full'],
  [/exceeds pixel limit/i, 'INPUT_LIMIT_EXCEEDED', 'The image is larger than the pixel limit'],
  // WebP and AVIF stop at 16383/16384 pixels a side, JPEG and GIF at 65535.
  [/too large for the \w+ format/i, 'INPUT_LIMIT_EXCEEDED', 'The image is too large for the target format'],
  [/timeout/i, 'CONVERSION_TIMEOUT', 'The image conversion took too long'],
  [/Input file is missing|ENOENT/i, 'INTERNAL', 'The conversion input file is missing'],
  [
    /Unable to parse colou?r|^Expected /i,
    'INVALID_OPTIONS',
    'An option value was refused by the image engine',
  ],
  // Decoder failures: damaged, truncated or unrecognised input. Checked before write errors,
  // because a failed read is often followed by "unable to write to target" in the same message.
  [
    /unsupported image format|Input buffer is empty|corrupt|premature end|truncated|read error|bad seek|Invalid input|unable to parse|not a known|load(?:_source|_buffer)?:|VipsJpeg|vipspng|gifload|webpload|heifload|tiffload|svgload|TIFFRead|rsvg|XML parse/i,
    'CORRUPT_INPUT',
    'The image is damaged or not a supported image',
  ],
];

/** A FileconvError for anything sharp threw; FileconvErrors pass through unchanged. */
export function mapSharpError(error: unknown): FileconvError {
  if (error instanceof FileconvError) return error;
  const text = error instanceof Error ? error.message : String(error);
  for (const [pattern, code, message] of PATTERNS) {
    if (pattern.test(text))
      return new FileconvError(code, `${message}: ${firstLine(text)}`, { cause: error });
  }
  return new FileconvError('CONVERSION_FAILED', `The image conversion failed: ${firstLine(text)}`, {
    cause: error,
  });
}

/** The first line of an engine message, without file paths (they would leak server layout). */
function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.replace(/(?<![\w.])\/(?:[^\s:/]+\/)*[^\s:/]+/g, '<file>').slice(0, 300);
}
