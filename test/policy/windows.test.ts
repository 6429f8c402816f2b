import { describe, expect, it } from 'vitest';
import {
  fixedWindow,
  MINUTE_MS,
  minuteWindow,
  utcDayWindow,
  utcHourWindow,
  utcMonthWindow,
} from '../../src/core/policy/windows.js';

const at = (iso: string) => Date.parse(iso);

describe('minuteWindow', () => {
  it('puts 12:00:59.999 and 12:01:00.000 in different windows', () => {
    const before = minuteWindow(at('2026-03-10T12:00:59.999Z'));
    const after = minuteWindow(at('2026-03-10T12:01:00.000Z'));
    expect(before.id).not.toBe(after.id);
    expect(before.end).toBe(at('2026-03-10T12:01:00.000Z'));
    expect(after.start).toBe(before.end);
    expect(Number(after.id)).toBe(Number(before.id) + 1);
  });

  it('puts every instant of a minute in the same window, start inclusive, end exclusive', () => {
    const start = at('2026-03-10T12:00:00.000Z');
    const window = minuteWindow(start);
    expect(window).toEqual({ id: String(start / MINUTE_MS), start, end: start + MINUTE_MS });
    expect(minuteWindow(start + 30_000)).toEqual(window);
    expect(minuteWindow(start + MINUTE_MS - 1)).toEqual(window);
  });

  it('uses the epoch minute number as the id, like the port documentation', () => {
    expect(minuteWindow(29_360_160 * MINUTE_MS + 5).id).toBe('29360160');
  });
});

describe('fixedWindow', () => {
  it('aligns windows of any length to the epoch', () => {
    expect(fixedWindow(12_345, 1000)).toEqual({ id: '12', start: 12_000, end: 13_000 });
    expect(fixedWindow(-1, 1000)).toEqual({ id: '-1', start: -1000, end: 0 });
  });

  it('refuses a bad instant or length', () => {
    expect(() => fixedWindow(Number.NaN, 1000)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
    expect(() => fixedWindow(Number.POSITIVE_INFINITY, 1000)).toThrow(/epoch-ms instant/);
    expect(() => fixedWindow(0, 0)).toThrow(/positive integer/);
    expect(() => minuteWindow('now' as never)).toThrow(/epoch-ms instant/);
  });
});

describe('utcHourWindow', () => {
  it('covers one clock hour', () => {
    expect(utcHourWindow(at('2026-03-10T12:59:59.999Z'))).toEqual({
      id: '2026-03-10T12',
      start: at('2026-03-10T12:00:00.000Z'),
      end: at('2026-03-10T13:00:00.000Z'),
    });
    expect(utcHourWindow(at('2026-12-31T23:30:00Z')).end).toBe(at('2027-01-01T00:00:00Z'));
  });
});

describe('utcDayWindow', () => {
  it('ends the day at 23:59:59.999 and starts the next at 00:00:00.000 UTC', () => {
    const late = utcDayWindow(at('2026-03-10T23:59:59.999Z'));
    const early = utcDayWindow(at('2026-03-11T00:00:00.000Z'));
    expect(late).toEqual({
      id: '2026-03-10',
      start: at('2026-03-10T00:00:00Z'),
      end: at('2026-03-11T00:00:00Z'),
    });
    expect(early.id).toBe('2026-03-11');
    expect(early.start).toBe(late.end);
  });

  it('handles Feb 29 in a leap year, Feb 28 otherwise, and Dec 31 into Jan 1', () => {
    expect(utcDayWindow(at('2028-02-28T12:00:00Z')).end).toBe(at('2028-02-29T00:00:00Z'));
    expect(utcDayWindow(at('2028-02-29T12:00:00Z'))).toEqual({
      id: '2028-02-29',
      start: at('2028-02-29T00:00:00Z'),
      end: at('2028-03-01T00:00:00Z'),
    });
    expect(utcDayWindow(at('2027-02-28T12:00:00Z')).end).toBe(at('2027-03-01T00:00:00Z'));
    expect(utcDayWindow(at('2026-12-31T23:59:59.999Z'))).toEqual({
      id: '2026-12-31',
      start: at('2026-12-31T00:00:00Z'),
      end: at('2027-01-01T00:00:00Z'),
    });
  });

  it('ignores the host time zone', () => {
    // UTC+14 is already "tomorrow" here: the window must still be the UTC day.
    expect(utcDayWindow(at('2026-03-10T11:00:00+14:00')).id).toBe('2026-03-09');
  });

  it('works for years that Date.UTC would map into the 1900s', () => {
    const year50 = new Date(0);
    year50.setUTCFullYear(50, 0, 1);
    expect(utcDayWindow(year50.getTime()).id).toBe('0050-01-01');
    expect(utcDayWindow(year50.getTime()).start).toBe(year50.getTime());
  });
});

describe('utcMonthWindow', () => {
  it.each([
    ['2028-02-29T23:59:59.999Z', '2028-02', '2028-02-01', '2028-03-01', 29],
    ['2027-02-15T00:00:00.000Z', '2027-02', '2027-02-01', '2027-03-01', 28],
    ['2100-02-15T00:00:00.000Z', '2100-02', '2100-02-01', '2100-03-01', 28],
    ['2000-02-15T00:00:00.000Z', '2000-02', '2000-02-01', '2000-03-01', 29],
    ['2026-04-30T12:00:00.000Z', '2026-04', '2026-04-01', '2026-05-01', 30],
    ['2026-12-31T23:59:59.999Z', '2026-12', '2026-12-01', '2027-01-01', 31],
    ['2027-01-01T00:00:00.000Z', '2027-01', '2027-01-01', '2027-02-01', 31],
  ])('%s is in month %s', (instant, id, start, end, days) => {
    const window = utcMonthWindow(at(instant));
    expect(window).toEqual({ id, start: at(`${start}T00:00:00Z`), end: at(`${end}T00:00:00Z`) });
    expect((window.end - window.start) / 86_400_000).toBe(days);
  });

  it('moves to the next month exactly at midnight on the first', () => {
    expect(utcMonthWindow(at('2028-02-29T23:59:59.999Z')).id).toBe('2028-02');
    expect(utcMonthWindow(at('2028-03-01T00:00:00.000Z')).id).toBe('2028-03');
  });
});
