/**
 * The soak's memory verdict (soak/checks.ts): a trend, not two moments of a sawtooth; and its
 * temp-dir verdict, which a worker restarted mid-run (new pid, pools grown anew) must not fail.
 */
import { describe, expect, it } from 'vitest';
import { tempLeaks, trendGrowth } from '../soak/checks.js';
import { resultProblem } from '../soak/inputs.js';
import type { NodeSample, Sample } from '../soak/monitor.js';

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

describe('tempLeaks', () => {
  const node = (name: string, pid: number, tempDirs: string[], isolatedChildren = 0): NodeSample => ({
    name,
    pid,
    rssBytes: 0,
    fds: 0,
    tempDirs,
    isolatedChildren,
  });
  const at = (...nodes: NodeSample[]): Sample => ({
    at: 0,
    nodes,
    engines: {},
    temp: { files: 0, bytes: 0 },
    data: { files: 0, bytes: 0 },
  });
  const before = at(
    node('worker-1', 923, [
      '/t/w1-tmp/fileconv-office-923-a',
      '/t/w1-tmp/fileconv-office-923-a/worker-1',
      '/t/w1-tmp/playwright_chromiumdev_profile-x',
      '/t/w1-data/tmp/923',
    ]),
    node('worker-2', 924, ['/t/w2-tmp/fileconv-office-924-b', '/t/w2-tmp/fileconv-office-924-b/worker-1']),
  );

  it('passes a node whose LibreOffice worker came back under another number', () => {
    const after = at(
      before.nodes[0]!,
      node('worker-2', 924, ['/t/w2-tmp/fileconv-office-924-b', '/t/w2-tmp/fileconv-office-924-b/worker-5']),
    );
    expect(tempLeaks(before, after)).toEqual([]);
  });

  it('fails a node that ran throughout and ends with more entries', () => {
    const after = at(
      before.nodes[0]!,
      node('worker-2', 924, [...before.nodes[1]!.tempDirs, '/t/w2-data/tmp/924/job']),
    );
    expect(tempLeaks(before, after)).toEqual([
      expect.stringMatching(
        /^worker-2: 2 temp entries before the load, 3 after; new: \/t\/w2-data\/tmp\/924\/job/,
      ),
    ]);
  });

  it("holds isolated children's dirs to the children alive, however many the pools grew to", () => {
    const children = (pid: number, ...numbers: number[]) => [
      `/t/w2-tmp/fileconv-isolated-${pid}-c`,
      ...numbers.map((n) => `/t/w2-tmp/fileconv-isolated-${pid}-c/child-${n}`),
    ];
    const grown = at(
      before.nodes[0]!,
      node('worker-2', 924, [...before.nodes[1]!.tempDirs, ...children(924, 3, 6, 7)], 3),
    );
    const baseline = at(
      before.nodes[0]!,
      node('worker-2', 924, [...before.nodes[1]!.tempDirs, ...children(924, 1)], 1),
    );
    expect(tempLeaks(baseline, grown)).toEqual([]);
    const leaked = at(
      before.nodes[0]!,
      node('worker-2', 924, [...before.nodes[1]!.tempDirs, ...children(924, 3, 6, 7)], 2),
    );
    expect(tempLeaks(baseline, leaked)).toEqual([
      expect.stringMatching(/^worker-2: 3 isolated children's temp dirs for 2 children alive/),
    ]);
  });

  it("passes a restarted worker whose new pools grew further, once its predecessor's dirs are gone", () => {
    const restarted = node('worker-1', 6612, [
      '/t/w1-tmp/fileconv-office-6612-c',
      '/t/w1-tmp/fileconv-office-6612-c/worker-2',
      '/t/w1-tmp/fileconv-office-6612-c/worker-4',
      '/t/w1-tmp/fileconv-chromium-6612-d',
      '/t/w1-tmp/playwright_chromiumdev_profile-y',
      '/t/w1-data/tmp/6612',
    ]);
    expect(tempLeaks(before, at(restarted, before.nodes[1]!))).toEqual([]);
  });

  it("fails a restarted worker when its predecessor's dirs or an extra engine profile remain", () => {
    const restarted = node('worker-1', 6612, [
      '/t/w1-tmp/fileconv-office-923-a',
      '/t/w1-data/tmp/923',
      '/t/w1-tmp/playwright_chromiumdev_profile-x',
      '/t/w1-tmp/playwright_chromiumdev_profile-y',
    ]);
    const leaks = tempLeaks(before, at(restarted, before.nodes[1]!));
    expect(leaks).toHaveLength(2);
    expect(leaks[0]).toMatch(
      /predecessor's \(pid 923\) temp dirs remain: \/t\/w1-tmp\/fileconv-office-923-a, \/t\/w1-data\/tmp\/923/,
    );
    expect(leaks[1]).toMatch(/2 engine temp entries after, 1 before/);
  });
});

describe('resultProblem', () => {
  it('holds a text result to the text it must contain: a CSV whose shared strings were lost is broken', async () => {
    const whole = Buffer.from('name,value\r\ngamma,-3,café\r\n');
    const emptied = Buffer.from('name,value\r\ngamma,-3,\r\n');
    expect(await resultProblem(whole, 'csv', 'gamma,-3,café')).toBeNull();
    expect(await resultProblem(emptied, 'csv', 'gamma,-3,café')).toBe('the csv result lacks "gamma,-3,café"');
    expect(await resultProblem(emptied, 'csv')).toBeNull();
  });
});
