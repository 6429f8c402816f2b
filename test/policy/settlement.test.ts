/**
 * The settlement rule (core/policy/settlement.ts) and job settlement (service/metering.ts):
 * whose fault each failure is, what a settled job gives back, and that a charge stored by an
 * earlier version in a real SQLite job store still refunds, while a charge that is no ticket
 * refunds nothing.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createSqliteJobStore } from '../../src/adapters/jobs/sqlite.js';
import { ERROR_CODES, type ErrorCode } from '../../src/core/errors.js';
import type { JobError } from '../../src/core/jobs/types.js';
import { consumeQuota } from '../../src/core/policy/enforce.js';
import { DEFAULT_PLANS } from '../../src/core/policy/plans.js';
import { faultOf, jobChargeOf, refundDue } from '../../src/core/policy/settlement.js';
import { settleJob } from '../../src/service/metering.js';
import { sampleJob } from '../../src/testing/index.js';
import { makeTempDir } from '../adapters/tmp-dirs.js';

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const error = (code: ErrorCode, details?: JobError['details']): JobError => ({
  code,
  message: 'x',
  ...(details ? { details } : {}),
});
const ticket = {
  kind: 'conversions',
  key: 'quota:conversions:ip:1:2026-11-22',
  expiresAt: NOW + 1,
  amount: 1,
};

describe('faultOf', () => {
  it("the service's faults are given back; every other failure is the input's", () => {
    const service = Object.keys(ERROR_CODES).filter(
      (code) => faultOf(error(code as ErrorCode)) === 'service',
    );
    expect(service.sort()).toEqual(
      [
        'CANCELED',
        'CONVERSION_FAILED',
        'ENGINE_UNAVAILABLE',
        'INTERNAL',
        'NO_SPACE',
        'OVERLOADED',
        'UNAVAILABLE',
      ].sort(),
    );
  });

  it("a timeout is the input's, unless it was spent waiting for a busy engine", () => {
    expect(faultOf(error('CONVERSION_TIMEOUT'))).toBe('input');
    expect(faultOf(error('CONVERSION_TIMEOUT', { fault: 'service' }))).toBe('service');
    for (const code of [
      'CORRUPT_INPUT',
      'UNSAFE_INPUT',
      'INPUT_LIMIT_EXCEEDED',
      'PASSWORD_PROTECTED',
    ] as const)
      expect(faultOf(error(code))).toBe('input');
  });
});

describe('refundDue', () => {
  it('gives back the charge of a job the service failed, nothing else', () => {
    const failed = (code: ErrorCode) => sampleJob({ status: 'failed', error: error(code), charge: ticket });
    expect(refundDue(failed('CONVERSION_FAILED'))).toEqual(ticket);
    expect(refundDue(failed('CONVERSION_TIMEOUT'))).toBeNull();
    expect(refundDue(failed('CORRUPT_INPUT'))).toBeNull();
    expect(refundDue(sampleJob({ status: 'completed', charge: ticket }))).toBeNull();
    expect(refundDue(sampleJob({ status: 'failed', error: error('INTERNAL'), charge: null }))).toBeNull();
  });

  it('reads only a ticket from the stored charge', () => {
    expect(jobChargeOf({ charge: ticket })).toEqual(ticket);
    for (const charge of [
      'conversions',
      { key: ticket.key, expiresAt: ticket.expiresAt, amount: 1 },
      { ...ticket, kind: 'minutes' },
      { ...ticket, amount: '1' },
    ]) {
      expect(jobChargeOf({ charge } as never)).toBeNull();
    }
  });
});

describe('settleJob over a real job store', () => {
  it('a charge stored as earlier versions stored it refunds; one that is no ticket refunds nothing', async () => {
    const { dir, remove } = await makeTempDir('settlement');
    try {
      const file = path.join(dir, 'fileconv.db');
      const counters = createMemoryCounterStore({ now: () => NOW });
      const charged = await consumeQuota(counters, {
        plan: DEFAULT_PLANS.free!,
        kind: 'conversions',
        clientKey: 'ip:203.0.113.7',
        now: NOW,
        amount: 2,
      });
      const share = { ...charged.ticket!, amount: 1 };
      const written = createSqliteJobStore({ path: file });
      // What the previous version wrote: the ticket as it was, under an untyped `charge`.
      const old = sampleJob({ status: 'failed', error: error('ENGINE_UNAVAILABLE'), charge: share });
      const foreign = sampleJob({
        status: 'failed',
        error: error('ENGINE_UNAVAILABLE'),
        charge: { invoice: 'inv_1' } as never,
      });
      await written.createJob(old);
      await written.createJob(foreign);
      await written.close();

      const reopened = createSqliteJobStore({ path: file });
      try {
        expect(await settleJob(counters, (await reopened.getJob(old.id))!, NOW)).toBe(true);
        expect(await settleJob(counters, (await reopened.getJob(foreign.id))!, NOW)).toBe(false);
        expect(await counters.get(share.key)).toBe(1);
      } finally {
        await reopened.close();
      }
    } finally {
      await remove();
    }
  });
});
