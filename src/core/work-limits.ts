/**
 * A conversion's work budgets (WorkLimits, usually a plan's) as the engine takes them: checked
 * when a job is created or a direct conversion starts, then laid over the engine's own limits
 * for the converter. The converters check them against what the input's headers say, before the
 * work starts.
 */
import { FileconvError } from './errors.js';

/**
 * The decoding budget of an input without a plan's, shared by the image and media engines:
 * 4 billion pixels: a 1080p video at 30 fps for about a minute, or a 640x421 screencast GIF of
 * 15,000 frames; any input may cost that much decoding.
 */
export const DEFAULT_MIN_WORK_PIXELS = 4_000_000_000;
/**
 * Beyond the floor, 50,000 decoded pixels per input byte: a 10-minute 1080p screen recording that
 * compressed to 1.5 MB still passes (25,000 px/byte); a 69 KB GIF that declares 3000 frames of
 * 4000x4000 (700,000 px/byte) does not. Real codecs rarely pass 10,000.
 */
export const DEFAULT_WORK_PIXELS_PER_BYTE = 50_000;

const FIELDS = [
  'maxWorkPixels',
  'maxMediaSeconds',
  'maxDocumentPages',
] as const satisfies readonly (keyof WorkLimits)[];

/** The budgets given, each a positive integer (INVALID_OPTIONS otherwise); undefined ones dropped. */
export function checkWorkLimits(limits: WorkLimits): WorkLimits {
  if (limits === null || typeof limits !== 'object') {
    throw new FileconvError('INVALID_OPTIONS', 'limits must be an object of work budgets.');
  }
  const checked: WorkLimits = {};
  for (const field of FIELDS) {
    const value = limits[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new FileconvError('INVALID_OPTIONS', `limits.${field} must be a positive integer.`, {
        details: { field, given: String(value) },
      });
    }
    checked[field] = value;
  }
  return checked;
}

/** The engine's limits with a job's budgets laid over them. */
export function withWorkLimits(engine: ConversionLimits, budgets: WorkLimits | undefined): ConversionLimits {
  return budgets ? { ...engine, ...budgets } : engine;
}

/**
 * INPUT_LIMIT_EXCEEDED for an input whose `amount` of work (as `what` describes it, e.g. "3000
 * frames of 4000x4000 pixels") is over the budget `field`; the details name the budget, so a
 * client can tell a plan's budget (a larger plan may allow it) from a broken file.
 */
export function workBudgetError(
  field: keyof WorkLimits,
  what: string,
  amount: number,
  limit: number,
): FileconvError {
  return new FileconvError(
    'INPUT_LIMIT_EXCEEDED',
    `${what}: more than this conversion's budget allows (${field} ${limit}, ${amount} asked)`,
    { details: { budget: field, limit, amount } },
  );
}

/**
 * One conversion's work budgets (a plan's, see Plan), checked from the input's headers before
 * the work starts; INPUT_LIMIT_EXCEEDED past one. Absent: no budget beyond the engine's limits.
 */
export interface WorkLimits {
  /** Pixels the conversion may decode: frames x frame size (animations, video, rendered PDF pages). */
  maxWorkPixels?: number;
  /** Longest audio or video input, seconds. */
  maxMediaSeconds?: number;
  /** Most pages of a PDF read, rendered or written. */
  maxDocumentPages?: number;
}

export interface ConversionLimits extends WorkLimits {
  /** Largest image (width x height) a converter may decode. */
  maxPixels: number;
}
