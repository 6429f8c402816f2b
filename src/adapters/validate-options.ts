/**
 * Fail-fast checks for adapter factory options. A misconfigured adapter should stop the host
 * at start-up with a message naming the option, what was expected and what was given, not
 * fail later on the first request.
 */
import { FileconvError } from '../core/errors.js';

/** A short, safe rendering of a given value for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length > 60 ? `a string of length ${value.length}` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

export function invalidOption(
  adapter: string,
  option: string,
  expected: string,
  given: unknown,
): FileconvError {
  return new FileconvError(
    'INVALID_OPTIONS',
    `${adapter}: option "${option}" must be ${expected}, got ${describeValue(given)}.`,
    { details: { adapter, option, expected, given: describeValue(given) } },
  );
}

/** The options argument itself: undefined (all defaults) or a plain object. */
export function checkOptionsObject<T extends object>(adapter: string, options: T | undefined): Partial<T> {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOption(adapter, 'options', 'an object', options);
  }
  return options;
}

export function checkNonEmptyString(adapter: string, option: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidOption(adapter, option, 'a non-empty string', value);
  return value;
}

export function checkBoolean(adapter: string, option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidOption(adapter, option, 'a boolean', value);
  return value;
}

export function checkFunction<F extends (...args: never[]) => unknown>(
  adapter: string,
  option: string,
  value: unknown,
  fallback: F,
): F {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw invalidOption(adapter, option, 'a function', value);
  return value as F;
}

export function checkPositiveInteger(
  adapter: string,
  option: string,
  value: unknown,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidOption(adapter, option, 'a positive integer', value);
  }
  return value;
}
