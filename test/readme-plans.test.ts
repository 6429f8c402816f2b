/** The README's plan table is DEFAULT_PLANS': regenerate it with `npx tsx scripts/readme-plans.ts`. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { END, plansTable, START, withPlansTable } from '../scripts/readme-plans.js';
import { DEFAULT_PLANS, definePlans } from '../src/core/policy/plans.js';

/** The README's table rows by plan name, each a list of its cells. */
function rowsOf(table: string): Map<string, string[]> {
  const rows = table
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| plan ') && !line.startsWith('| ---'))
    .map((line) =>
      line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  return new Map(rows.map((cells) => [cells[0]!.split(' ')[0]!, cells]));
}

describe("README's plan table", () => {
  it('matches DEFAULT_PLANS (run `npx tsx scripts/readme-plans.ts` after changing plans)', async () => {
    const readme = await readFile(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    expect(readme).toBe(withPlansTable(readme));
    const table = readme.slice(readme.indexOf(START) + START.length, readme.indexOf(END));
    const rows = rowsOf(table);
    expect([...rows.keys()]).toEqual(Object.keys(DEFAULT_PLANS));
    // Read back independently of the generator: batch sizes and request rates as the plans say.
    for (const plan of Object.values(DEFAULT_PLANS)) {
      const cells = rows.get(plan.name)!;
      expect(cells[4]!.replace('*', '')).toBe(plan.batch ? `up to ${plan.maxBatchJobs} jobs` : 'no');
      const [upload, other] = cells[7]!.replace('*', '').split(' / ');
      expect(Number(upload!.replace(/,/g, ''))).toBe(plan.uploadRequestsPerMinute);
      expect(Number(other!.replace(/,/g, ''))).toBe(plan.requestsPerMinute);
    }
    expect(rows.get('pro')![4]).toBe('up to 20 jobs*');
    expect(rows.get('free')![7]).toBe('20 / 60'); // the specification's, so not starred
  });

  it("follows the table it is given: units, 'unlimited', 'no limit' and the specification's stars", () => {
    const plans = definePlans({
      pro: { maxBatchJobs: 50, uploadRequestsPerMinute: null, maxFileBytes: 3 * 1024 * 1024 + 1 },
      free: { conversionsPerDay: 1_000, uploadRetentionSeconds: 90 },
    });
    const rows = rowsOf(plansTable(plans));
    expect(rows.get('pro')!.slice(2, 5)).toEqual(['3,145,729 bytes*', '20 GB*', 'up to 50 jobs*']);
    expect(rows.get('pro')![7]).toBe('no limit / 1,200*');
    // A value changed from the specification's is starred; seconds stay seconds.
    expect(rows.get('free')![1]).toBe('1,000*');
    expect(rows.get('free')![8]).toBe('90 s*');
    expect(rows.get('enterprise')![3]).toBe('unlimited*');
  });
});
