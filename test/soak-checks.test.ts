/** The soak's memory verdict (soak/checks.ts): a trend, not two moments of a sawtooth. */
import { describe, expect, it } from 'vitest';
import { trendGrowth } from '../soak/checks.js';

describe('trendGrowth', () => {
  const MB = 2 ** 20;
  it('sees no growth in RSS that swings by 20% around a level (garbage collection, big images)', () => {
    const points = Array.from(
      { length: 60 },
      (_, i) => [i * 5000, (500 + (i % 6 < 3 ? 50 : -50)) * MB] as const,
    );
    expect(Math.abs(trendGrowth(points, 300_000))).toBeLessThan(0.05);
  });
  it('sees a steady leak: 400 to 480 MB over the span is 18% of the mean', () => {
    const points = Array.from({ length: 61 }, (_, i) => [i * 5000, (400 + (80 * i) / 60) * MB] as const);
    expect(trendGrowth(points, 300_000)).toBeCloseTo(80 / 440, 2);
  });
});
