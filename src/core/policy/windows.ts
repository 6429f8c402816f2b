/**
 * Counting windows as pure math on an epoch-ms instant. Rate limits use fixed windows aligned
 * to the epoch (every minute starts at :00.000); quotas use the UTC clock hour, the UTC day and
 * the UTC calendar month. Each window has an `id` that goes into a counter key, so a counter
 * names its window and the CounterStore only needs an atomic add that expires at `end`.
 */
import { FileconvError } from '../errors.js';

export interface CountingWindow {
  /** Names the window inside a counter key: '29360160' (minute number), '2028-02-29', '2028-02'. */
  id: string;
  /** First instant in the window, epoch ms, inclusive. */
  start: number;
  /** First instant after the window, epoch ms, exclusive: when its counter resets. */
  end: number;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Dates Date can represent (±8.64e15 ms): outside them the calendar math is meaningless. */
const MAX_INSTANT = 8.64e15;

function checkInstant(now: number): number {
  if (typeof now !== 'number' || !Number.isFinite(now) || Math.abs(now) > MAX_INSTANT) {
    throw new FileconvError('INVALID_REQUEST', `A window needs an epoch-ms instant; got ${String(now)}.`);
  }
  return Math.floor(now);
}

/**
 * The fixed window of `lengthMs` containing `now`, aligned to the epoch. Its id is the window's
 * ordinal (`floor(now / lengthMs)`), so the same instant in windows of different lengths gets
 * different ids; counter keys still carry their scope so ids never need to be unique alone.
 */
export function fixedWindow(now: number, lengthMs: number): CountingWindow {
  const instant = checkInstant(now);
  if (!Number.isSafeInteger(lengthMs) || lengthMs < 1) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `A window length must be a positive integer of ms; got ${lengthMs}.`,
    );
  }
  const index = Math.floor(instant / lengthMs);
  return { id: String(index), start: index * lengthMs, end: (index + 1) * lengthMs };
}

/** The minute containing `now`: [hh:mm:00.000, hh:mm+1:00.000). */
export function minuteWindow(now: number): CountingWindow {
  return fixedWindow(now, MINUTE_MS);
}

/** Date.UTC, minus its mapping of years 0-99 to 1900-1999. */
function utc(year: number, month: number, day = 1, hour = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hour, 0, 0, 0);
  return date.getTime();
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** 'YYYY' with a sign and 6 digits outside 0000-9999, as ISO 8601 expanded years do. */
function yearId(year: number): string {
  if (year >= 0 && year <= 9999) return pad(year, 4);
  return `${year < 0 ? '-' : '+'}${pad(Math.abs(year), 6)}`;
}

/** The UTC clock hour containing `now`; id 'YYYY-MM-DDTHH'. */
export function utcHourWindow(now: number): CountingWindow {
  const date = new Date(checkInstant(now));
  const start = utc(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours());
  const id = `${yearId(date.getUTCFullYear())}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}`;
  return { id, start, end: start + HOUR_MS };
}

/** The UTC day containing `now`: [00:00:00.000Z, next 00:00:00.000Z); id 'YYYY-MM-DD'. */
export function utcDayWindow(now: number): CountingWindow {
  const date = new Date(checkInstant(now));
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = date.getUTCDate();
  // utc() rolls day 32 into the next month and month 12 into the next year.
  return {
    id: `${yearId(year)}-${pad(month + 1)}-${pad(day)}`,
    start: utc(year, month, day),
    end: utc(year, month, day + 1),
  };
}

/** The UTC calendar month containing `now`, whatever its length; id 'YYYY-MM'. */
export function utcMonthWindow(now: number): CountingWindow {
  const date = new Date(checkInstant(now));
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return {
    id: `${yearId(year)}-${pad(month + 1)}`,
    start: utc(year, month),
    end: utc(year, month + 1),
  };
}
