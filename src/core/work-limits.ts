/**
 * A conversion's work budgets (WorkLimits, usually a plan's) as the engine takes them: checked
 * when a job is created or a direct conversion starts, then laid over the engine's own limits
 * for the converter. The converters check them against what the input's headers say, before the
 * work starts.
 */
import { FileconvError } from './errors.js';
import type { ConversionLimits, WorkLimits } from './ports.js';

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
