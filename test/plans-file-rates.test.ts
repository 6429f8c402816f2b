/**
 * The plans' request rates set without code: a plans file ($FILECONV_PLANS, `fileconv serve
 * --plans`) changes them like any other plan field, `null` lifts one, a new plan left without
 * them gets the specification's 20 and 60 a minute, and a bad value stops the start naming the
 * file, the plan and the field.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../src/core/policy/plans.js';
import { loadPlansFile } from '../src/preset/limits-config.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fileconv-plan-rates-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function plansFile(name: string, plans: unknown): Promise<string> {
  const file = join(root, name);
  await writeFile(file, JSON.stringify(plans));
  return file;
}

describe('request rates in a plans file', () => {
  it('changes, lifts and defaults them', async () => {
    const { name: _, uploadRequestsPerMinute, requestsPerMinute, ...team } = DEFAULT_PLANS.pro!;
    const file = await plansFile('rates.json', {
      pro: { uploadRequestsPerMinute: 1_000 },
      enterprise: { requestsPerMinute: null },
      team: { ...team, label: 'Team' },
    });
    const plans = await loadPlansFile(file);
    expect(plans.pro).toMatchObject({ uploadRequestsPerMinute: 1_000, requestsPerMinute: 1_200 });
    expect(plans.enterprise).toMatchObject({ uploadRequestsPerMinute: 3_000, requestsPerMinute: null });
    expect(plans.team).toMatchObject({ uploadRequestsPerMinute: 20, requestsPerMinute: 60 });
    expect(plans.free).toMatchObject({ uploadRequestsPerMinute: 20, requestsPerMinute: 60 });
  });

  it('refuses a rate that is not a positive integer, naming the file, plan and field', async () => {
    const file = await plansFile('bad-rate.json', { plus: { uploadRequestsPerMinute: 0 } });
    await expect(loadPlansFile(file)).rejects.toThrow(
      `Plans file ${file}: plan "plus" field "uploadRequestsPerMinute" must be a positive integer of requests or null (no rate limit), got 0.`,
    );
  });
});
