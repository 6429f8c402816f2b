import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, windowSeconds } from '../../src/core/policy/headers.js';
import { decide } from '../../src/core/policy/limits.js';

const at = (iso: string) => Date.parse(iso);
const now = at('2026-03-10T12:00:18.000Z');
const minuteEnd = at('2026-03-10T12:01:00.000Z');

describe('rateLimitHeaders', () => {
  it('formats one allowed policy with the IETF fields and the X- fields', () => {
    const decision = decide({ limit: 20, count: 1, windowEnd: minuteEnd, now });
    expect(rateLimitHeaders({ policy: 'upload', decision, windowSeconds: 60 }, now)).toEqual({
      'RateLimit-Policy': '"upload";q=20;w=60',
      RateLimit: '"upload";r=19;t=42',
      'X-RateLimit-Limit': '20',
      'X-RateLimit-Remaining': '19',
      'X-RateLimit-Reset': String(minuteEnd / 1000),
    });
  });

  it('adds Retry-After to a refusal', () => {
    const decision = decide({ limit: 60, count: 61, windowEnd: minuteEnd, now: now + 500 });
    const headers = rateLimitHeaders({ policy: 'default', decision, windowSeconds: 60 }, now + 500);
    expect(headers.RateLimit).toBe('"default";r=0;t=42');
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers['Retry-After']).toBe('42');
  });

  it('lists several policies and reports the tightest in the X- fields', () => {
    const rate = decide({ limit: 20, count: 3, windowEnd: minuteEnd, now });
    const daily = decide({ limit: 5, count: 4, windowEnd: at('2026-03-11T00:00:00Z'), now });
    const headers = rateLimitHeaders(
      [
        { policy: 'upload', decision: rate, windowSeconds: 60 },
        { policy: 'conversions', decision: daily, windowSeconds: 86_400 },
      ],
      now,
    );
    expect(headers['RateLimit-Policy']).toBe('"upload";q=20;w=60, "conversions";q=5;w=86400');
    expect(headers.RateLimit).toBe('"upload";r=17;t=42, "conversions";r=1;t=43182');
    expect(headers['X-RateLimit-Limit']).toBe('5');
    expect(headers['X-RateLimit-Remaining']).toBe('1');
    expect(headers['X-RateLimit-Reset']).toBe(String(at('2026-03-11T00:00:00Z') / 1000));
    expect(headers['Retry-After']).toBeUndefined();
  });

  it('rounds the reset up to a whole second', () => {
    const decision = decide({ limit: 20, count: 1, windowEnd: minuteEnd + 250, now });
    const headers = rateLimitHeaders({ policy: 'upload', decision, windowSeconds: 60 }, now);
    expect(headers.RateLimit).toBe('"upload";r=19;t=43');
    expect(headers['X-RateLimit-Reset']).toBe(String(minuteEnd / 1000 + 1));
  });

  it('escapes policy names as Structured Field strings and refuses non-ASCII ones', () => {
    const decision = decide({ limit: 1, count: 1, windowEnd: minuteEnd, now });
    expect(rateLimitHeaders({ policy: 'a"b\\c', decision, windowSeconds: 60 }, now)['RateLimit-Policy']).toBe(
      '"a\\"b\\\\c";q=1;w=60',
    );
    expect(() => rateLimitHeaders({ policy: 'ü', decision, windowSeconds: 60 }, now)).toThrow(
      /printable ASCII/,
    );
  });

  it('sends nothing for no policies', () => {
    expect(rateLimitHeaders([], now)).toEqual({});
  });
});

describe('windowSeconds', () => {
  it('is the window length in seconds', () => {
    expect(windowSeconds({ start: 0, end: 60_000 })).toBe(60);
    expect(windowSeconds({ start: at('2028-02-01T00:00:00Z'), end: at('2028-03-01T00:00:00Z') })).toBe(
      29 * 86_400,
    );
  });
});
