/**
 * Turns a runner's CONVERSION_FAILED into the code the caller can act on, from ffmpeg's own
 * words (the stderr lines both runners put in `details.log`): a damaged input is CORRUPT_INPUT,
 * a frame above the decoder's pixel limit INPUT_LIMIT_EXCEEDED. The same table serves the native
 * and the WebAssembly runner, since both run the same ffmpeg code.
 */
import { type ErrorCode, FileconvError, toFileconvError } from '../../core/errors.js';

const PATTERNS: readonly [RegExp, ErrorCode, string][] = [
  // The machine's fault, not the file's: checked first, since ffmpeg then also reports the
  // output it could not finish (found by the soak: a full disk read as a damaged input).
  [/No space left on device|Disk quota exceeded/i, 'NO_SPACE', 'The disk is full'],
  [
    /exceeds specified max pixel count/i,
    'INPUT_LIMIT_EXCEEDED',
    'A video frame is larger than the pixel limit',
  ],
  [
    // A container ffmpeg reads holding a coding it cannot decode: a 36-bit PCM WAV, a codec
    // this build lacks. The input's fault (422-class, not refunded), and said as such.
    /Decoder \(codec [^)]*\) not found|Unsupported codec|unsupported bits per sample|codec not currently supported in container|Unknown encoder 'none'|could not find a decoder/i,
    'UNSUPPORTED_FORMAT',
    "The file's audio or video coding is not one this ffmpeg can decode",
  ],
  [
    /Invalid data found when processing input|moov atom not found|could not find codec parameters|Error while decoding|error reading header|Truncating packet|Invalid NAL unit|corrupt|truncated|Header missing|no frame!|Failed to open codec in avformat_find_stream_info|partial file/i,
    'CORRUPT_INPUT',
    'The file is damaged or not a supported audio or video file',
  ],
];

/**
 * What ffmpeg logs (at error level) when an input's index points past the end of the file, a
 * truncated MP4 upload; it then carries on, exits 0 and writes a shortened result. Both runners
 * turn a run that logged it into a failure (CORRUPT_INPUT, through the pattern above).
 */
export const TRUNCATION_WARNING = /: partial file$/m;

function stderrText(details: Record<string, unknown> | undefined): string {
  const stderr = details?.log;
  if (Array.isArray(stderr)) return stderr.filter((line) => typeof line === 'string').join('\n');
  return typeof stderr === 'string' ? stderr : '';
}

/** A FileconvError for whatever a runner threw; only CONVERSION_FAILED is re-read. */
export function mapRunnerError(error: unknown): FileconvError {
  const mapped = toFileconvError(error, 'CONVERSION_FAILED');
  if (mapped.code !== 'CONVERSION_FAILED') return mapped;
  const text = stderrText(mapped.details);
  for (const [pattern, code, message] of PATTERNS) {
    if (pattern.test(text)) {
      return new FileconvError(code, message, {
        cause: mapped,
        ...(mapped.details ? { details: mapped.details } : {}),
      });
    }
  }
  return mapped;
}
