/**
 * Metering: the one place the service charges its clients' quotas and gives charges back.
 *
 * Within a request. Each request has a Meter (`call.meter`). A route charges through it (a file
 * and its bytes for an upload, conversions for jobs) and gets a ticket, which the request holds
 * until it settles it with what it used, or answers. Everything a request charges is one unit
 * of work: when the request fails after a charge (a later quota refuses, the body is bad,
 * storage is away, the client leaves), every ticket it still holds is given back, whichever
 * route it was (Meter.run, which the service wraps around every route). A ticket settled (an
 * upload stored, jobs created) stays charged whatever the request does next.
 *
 * After a job. A job carries a one-unit share of its request's conversions ticket; once the job
 * settles (the engine's onJobSettled: `settleJobCharges`), the share is kept when the job
 * completed or failed on its input, and given back when the service failed it (the rule is
 * core/policy/settlement.ts).
 *
 * Giving back never leaves a counter below zero, a ticket is given back at most once, and a
 * refund a full disk refused goes on in the background (core/policy/enforce.ts refundQuota).
 */

import type { Job } from '../core/jobs/types.js';
import { consumeQuota, type QuotaTicket, refundQuota } from '../core/policy/enforce.js';
import { clientKeyOf, QUOTAS, type QuotaKind } from '../core/policy/limits.js';
import { refundDue } from '../core/policy/settlement.js';
import type { CounterStore } from '../core/ports/index.js';
import type { AccessSettings, Call } from './access.js';
import { setLimitHeaders } from './limit-headers.js';

/** What one request charged and has not settled yet; see the module comment. */
export interface Meter {
  /**
   * Charges `amount` units (default 1) of a plan quota to the caller and sets the quota's
   * headers; QUOTA_EXCEEDED, counting nothing, when they do not fit. Null when nothing was
   * counted: no counters, a plan without that limit, or an amount of 0. The request holds the
   * ticket until it settles it or answers; should the request fail first, it is given back.
   */
  charge(kind: QuotaKind, amount?: number): Promise<QuotaTicket | null>;
  /**
   * Settles `ticket` at `used` units (default: all of it): the rest is given back now, and the
   * used part stays charged whatever happens to the request from here.
   */
  settle(ticket: QuotaTicket | null, used?: number): Promise<void>;
  /**
   * Charges `count` conversions and runs `create` with each job's one-unit share of the ticket;
   * once `create` has made the jobs, the charge is theirs (settled when each job settles).
   */
  chargeJobs<T>(count: number, create: (share: QuotaTicket | null) => Promise<T>): Promise<T>;
  /**
   * Runs the request's work as one unit (the service runs every route through it): when it
   * fails, every ticket the request charged and has not settled is given back, then its error
   * goes on as it was.
   */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** What a meter reads of its request: who calls, and where the quota headers go. */
type MeteredCall = Pick<Call, 'client' | 'entries' | 'headers'>;

/** A meter for one request of `call`. */
export function openMeter(settings: AccessSettings, call: MeteredCall): Meter {
  const tickets = new Set<QuotaTicket>();
  const meter: Meter = {
    async charge(kind, amount = 1) {
      if (!settings.counters || amount === 0) return null;
      const now = settings.now();
      const { client } = call;
      const outcome = await consumeQuota(settings.counters, {
        plan: client.plan,
        kind,
        clientKey: clientKeyOf(client.accountId === null ? null : { accountId: client.accountId }, client.ip),
        now,
        amount,
      });
      if (outcome.entry && QUOTAS[kind].inRateLimitHeaders) call.entries.push(outcome.entry);
      setLimitHeaders(call, now);
      if (outcome.error) throw outcome.error;
      if (outcome.ticket) tickets.add(outcome.ticket);
      return outcome.ticket;
    },
    async settle(ticket, used = ticket?.amount ?? 0) {
      // A ticket this request no longer holds was settled or given back already.
      if (!ticket || !tickets.delete(ticket)) return;
      const unused = ticket.amount - Math.max(0, used);
      if (unused > 0) await giveBack(settings, { ...ticket, amount: unused });
    },
    async chargeJobs(count, create) {
      const ticket = await meter.charge('conversions', count);
      // One ticket covers the batch; each job carries a one-unit share, so a failed job refunds one.
      const made = await create(ticket && { ...ticket, amount: 1 });
      await meter.settle(ticket);
      return made;
    },
    async run(work) {
      try {
        return await work();
      } catch (error) {
        const unsettled = [...tickets];
        tickets.clear();
        // The request's own error is what its client needs; a refund the counters refused
        // (the store away) is the host's to hear of.
        await Promise.all(
          unsettled.map((ticket) =>
            giveBack(settings, ticket).catch((refused: unknown) => settings.onError?.(refused)),
          ),
        );
        throw error;
      }
    },
  };
  return meter;
}

async function giveBack(settings: AccessSettings, ticket: QuotaTicket): Promise<void> {
  if (settings.counters) await refundQuota(settings.counters, ticket, settings.now());
}

/**
 * Settles a job's charge once the job has settled: gives its conversion back when the service
 * failed it, keeps it when the job completed or failed on its input. True when given back
 * (false too while a refund a full disk refused goes on in the background).
 */
export async function settleJob(counters: CounterStore, job: Job, now: number): Promise<boolean> {
  const due = refundDue(job);
  return due ? refundQuota(counters, due, now) : false;
}

/**
 * The engine hook that settles every job's charge where the job ran:
 * `createEngine({ onJobSettled: settleJobCharges(counters) })` on each process that runs a
 * worker over jobs the HTTP service created (the preset wires it).
 */
export function settleJobCharges(
  counters: CounterStore,
  now: () => number = Date.now,
): (job: Job) => Promise<void> {
  return async (job) => {
    await settleJob(counters, job, now());
  };
}
