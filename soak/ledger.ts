/** Everything the soak's clients saw, kept for the per-minute report and the end checks. */
import type { ServerErrorRecord } from './http.js';

export type Outcome = 'completed' | 'failed' | 'refused' | 'abandoned' | 'unwatched' | 'broken';

export interface Attempt {
  client: string;
  kind: string;
  label: string;
  flow: 'A' | 'B';
  bad: boolean;
  behaviour: 'normal' | 'leave-mid-upload' | 'never-download';
  startedAt: number;
  endedAt: number;
  /**
   * completed: the result downloaded and is what it claims; failed: the job ended failed;
   * refused: an error answer before any job existed; abandoned: the client left mid-upload;
   * unwatched: a job acknowledged and never looked at again (the end checks look);
   * broken: anything else (a wrong result, a network error past every retry).
   */
  outcome: Outcome;
  /** The HTTP status of the answer that decided the outcome (or the failed job's code's status). */
  status: number | null;
  code: string | null;
  retries: number;
  /**
   * Job-creating requests (create, convert) sent again after an answer that did not say whether a
   * job was made (a 503, a 409 in progress, a dropped connection): each may have made one the
   * client never heard of, which ran and was charged.
   */
  uncertainCreates: number;
  problem?: string;
}

/** A job the service acknowledged (its id given to a client): it must reach a terminal state. */
export interface AckedJob {
  jobId: string;
  /** The client whose key (or address) created it: its view is the one to ask. */
  client: string;
  headers: Record<string, string>;
  bad: boolean;
  /** What the client learnt of its end: completed, failed (with code), or null when unknown yet. */
  final: { status: 'completed' | 'failed' | 'canceled'; code: string | null } | null;
}

export interface Ledger {
  attempts: Attempt[];
  jobs: Map<string, AckedJob>;
  serverErrors: ServerErrorRecord[];
}

export function createLedger(): Ledger {
  return { attempts: [], jobs: new Map(), serverErrors: [] };
}
