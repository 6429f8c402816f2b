/**
 * Plans as data: one table says what each plan allows (daily conversions, file size, hourly
 * files, monthly API calls, queue priority, batch). The values the specification gives are the
 * defaults; the ones it leaves open (Business and Enterprise sizes and quotas, every hourly file
 * limit) are documented defaults a host changes with `definePlans`, never constants in code.
 *
 * Sizes: the specification's "MB" and "GB" are read as binary units (1 MB = 2^20 bytes,
 * 1 GB = 2^30 bytes) everywhere in fileconv, so "25 MB" is 26,214,400 bytes, the same number the
 * HTTP adapter's default upload limit uses. The binary reading is the generous one: a file a user
 * sees as "25 MB" in a file manager never fails a 25 MB limit.
 */
import { z } from 'zod';
import { FileconvError } from '../errors.js';
import { fileTooLarge } from '../file-size.js';
import type { WorkLimits } from '../ports/index.js';

/** One megabyte as the plan table counts it: 2^20 bytes. */
export const MB = 1024 * 1024;
/** One gigabyte as the plan table counts it: 2^30 bytes. */
export const GB = 1024 * MB;

/** The plan of callers without an API key; limits apply per IP address. */
export const FREE_PLAN = 'free';

export interface Plan {
  /** Key of the plan in its table: 'free', 'plus', ... */
  name: string;
  /** Display name: 'Free', 'Plus', ... */
  label: string;
  /** Conversions per UTC day; null = unlimited. */
  conversionsPerDay: number | null;
  /** Largest input file, bytes. */
  maxFileBytes: number;
  /** Files uploaded per clock hour (UTC); null = no hourly limit. */
  filesPerHour: number | null;
  /**
   * Bytes uploaded per clock hour (UTC); null = no limit. Uploads are kept an hour, so this also
   * bounds the disk one client can hold with files it never converts.
   */
  uploadBytesPerHour: number | null;
  /**
   * How long an uploaded file waits for its conversion before it is deleted, seconds; null = the
   * engine's uploadTtlMs (an hour by default). Bounds the disk a client holds with files it never
   * converts, together with uploadBytesPerHour.
   */
  uploadRetentionSeconds: number | null;
  /**
   * Work budgets of one conversion, decided from the input's headers before any work starts
   * (INPUT_LIMIT_EXCEEDED past them); null = only the engine's own limits. `maxWorkPixels`: the
   * pixels a conversion may decode, frames x frame size (an image, an animation's frames, a
   * video's frames, a PDF's rendered pages). `maxMediaSeconds`: the longest audio or video input.
   * `maxDocumentPages`: the most pages of a PDF read, rendered or written.
   */
  maxWorkPixels: number | null;
  maxMediaSeconds: number | null;
  maxDocumentPages: number | null;
  /** API calls per UTC calendar month; null = not metered (Free, which has no key to meter). */
  apiCallsPerMonth: number | null;
  /** Queue priority of the plan's jobs; higher runs first. Free is 0. */
  priority: number;
  /** Whether the plan may submit batches of jobs. */
  batch: boolean;
  /** Most jobs in one batch; 0 when `batch` is false. */
  maxBatchJobs: number;
  /**
   * Requests a minute to the "upload and convert" endpoints (the 'upload' rate-limit class);
   * null = no rate limit. Counted per IP for anonymous callers (the Free plan), per account for
   * a key or a host's sign-in.
   */
  uploadRequestsPerMinute: number | null;
  /** Requests a minute to every other limited endpoint (the 'default' class); null = no rate limit. */
  requestsPerMinute: number | null;
}

export type PlanTable = Readonly<Record<string, Readonly<Plan>>>;

/**
 * The default plan table. From the specification: Free 5/day and 25 MB; Plus 100/day, 100 MB,
 * priority, 1,000 API calls/month; Pro unlimited, 2 GB, priority, batch, 10,000 calls/month;
 * Business 50,000 and Enterprise 100,000 calls/month. Open in the specification, chosen here:
 * Business and Enterprise conversions unlimited, 5 GB and 10 GB; no hourly file limit on any
 * plan (null: the specification names the limit but gives no value, and inventing one would
 * refuse paying users it promises "unlimited"; the per-IP rate limit still bounds bursts);
 * priorities 0/5/10/15/20; batches of 20 (Pro), 50 (Business), 100 (Enterprise) jobs; bytes
 * uploaded per hour 100 MB (Free: four files at its 25 MB limit, so one address cannot fill a
 * disk with uploads it never converts), 2 GB (Plus), 20 GB (Pro), 100 GB (Business), unlimited
 * (Enterprise); uploads kept 15 minutes for Free (long enough to convert what was just uploaded),
 * the engine's hour for the others.
 *
 * Work budgets (also open, chosen here so that one Free conversion costs at most a few CPU
 * minutes): decoded pixels 10^10 for Free (about 2.5 minutes of 1080p at 30 fps, or 100 frames
 * of a 100-megapixel animation), 10^11 for Plus, 10^12 for Pro, no plan budget above; media
 * 10 minutes (Free), 3 hours (Plus), none above; PDF pages 100 (Free), 1,000 (Plus), 10,000
 * (Pro), none above. The engines' own limits (maxPixels a frame, the PDF converter's maxPages,
 * ffmpeg's maxDurationSeconds and its per-byte frame budget) apply on every plan.
 *
 * Request rates a minute, upload class / others: Free 20 / 60 (the specification's per-IP
 * rates, which anonymous callers get per IP address); open in the specification, chosen here
 * for keyed callers, counted per account wherever it calls from: Plus 60 / 300, Pro 300 / 1,200
 * (a server converting 500 files an hour stays far below), Business 1,000 / 3,000, Enterprise
 * 3,000 / 10,000. They bound bursts only; the daily, hourly and monthly quotas bound volume.
 */
export const DEFAULT_PLANS: PlanTable = deepFreeze({
  free: {
    name: 'free',
    label: 'Free',
    conversionsPerDay: 5,
    maxFileBytes: 25 * MB,
    filesPerHour: null,
    uploadBytesPerHour: 100 * MB,
    uploadRetentionSeconds: 15 * 60,
    maxWorkPixels: 10_000_000_000,
    maxMediaSeconds: 10 * 60,
    maxDocumentPages: 100,
    apiCallsPerMonth: null,
    priority: 0,
    batch: false,
    maxBatchJobs: 0,
    uploadRequestsPerMinute: 20,
    requestsPerMinute: 60,
  },
  plus: {
    name: 'plus',
    label: 'Plus',
    conversionsPerDay: 100,
    maxFileBytes: 100 * MB,
    filesPerHour: null,
    uploadBytesPerHour: 2 * GB,
    uploadRetentionSeconds: null,
    maxWorkPixels: 100_000_000_000,
    maxMediaSeconds: 3 * 3600,
    maxDocumentPages: 1_000,
    apiCallsPerMonth: 1_000,
    priority: 5,
    batch: false,
    maxBatchJobs: 0,
    uploadRequestsPerMinute: 60,
    requestsPerMinute: 300,
  },
  pro: {
    name: 'pro',
    label: 'Pro',
    conversionsPerDay: null,
    maxFileBytes: 2 * GB,
    filesPerHour: null,
    uploadBytesPerHour: 20 * GB,
    uploadRetentionSeconds: null,
    maxWorkPixels: 1_000_000_000_000,
    maxMediaSeconds: null,
    maxDocumentPages: 10_000,
    apiCallsPerMonth: 10_000,
    priority: 10,
    batch: true,
    maxBatchJobs: 20,
    uploadRequestsPerMinute: 300,
    requestsPerMinute: 1_200,
  },
  business: {
    name: 'business',
    label: 'Business',
    conversionsPerDay: null,
    maxFileBytes: 5 * GB,
    filesPerHour: null,
    uploadBytesPerHour: 100 * GB,
    uploadRetentionSeconds: null,
    maxWorkPixels: null,
    maxMediaSeconds: null,
    maxDocumentPages: null,
    apiCallsPerMonth: 50_000,
    priority: 15,
    batch: true,
    maxBatchJobs: 50,
    uploadRequestsPerMinute: 1_000,
    requestsPerMinute: 3_000,
  },
  enterprise: {
    name: 'enterprise',
    label: 'Enterprise',
    conversionsPerDay: null,
    maxFileBytes: 10 * GB,
    filesPerHour: null,
    uploadBytesPerHour: null,
    uploadRetentionSeconds: null,
    maxWorkPixels: null,
    maxMediaSeconds: null,
    maxDocumentPages: null,
    apiCallsPerMonth: 100_000,
    priority: 20,
    batch: true,
    maxBatchJobs: 100,
    uploadRequestsPerMinute: 3_000,
    requestsPerMinute: 10_000,
  },
});

function deepFreeze<T extends Record<string, object>>(table: T): T {
  for (const value of Object.values(table)) Object.freeze(value);
  return Object.freeze(table);
}

const PLAN_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const limitOrNull = count.nullable();
const positiveOrNull = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable();

const planSchema = z
  .strictObject({
    name: z.string().regex(PLAN_NAME),
    label: z.string().trim().min(1).max(64),
    conversionsPerDay: limitOrNull,
    maxFileBytes: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    filesPerHour: limitOrNull,
    uploadBytesPerHour: limitOrNull,
    uploadRetentionSeconds: positiveOrNull,
    maxWorkPixels: positiveOrNull,
    maxMediaSeconds: positiveOrNull,
    maxDocumentPages: positiveOrNull,
    apiCallsPerMonth: limitOrNull,
    priority: z.number().int().min(0).max(1_000_000),
    batch: z.boolean(),
    maxBatchJobs: count,
    uploadRequestsPerMinute: positiveOrNull,
    requestsPerMinute: positiveOrNull,
  })
  .refine((plan) => !plan.batch || plan.maxBatchJobs >= 1, {
    message: 'must be at least 1 when batch is true',
    path: ['maxBatchJobs'],
  });

/** What each field must be, in the words of the fail-fast message. */
const EXPECTED: Record<keyof Plan, string> = {
  name: "the plan's key",
  label: 'a non-empty string of at most 64 characters',
  conversionsPerDay: 'a non-negative integer or null (unlimited)',
  maxFileBytes: 'a positive integer of bytes',
  filesPerHour: 'a non-negative integer or null (no limit)',
  uploadBytesPerHour: 'a non-negative integer of bytes or null (no limit)',
  uploadRetentionSeconds: "a positive integer of seconds or null (the engine's uploadTtlMs)",
  maxWorkPixels: "a positive integer of pixels or null (the engine's limits only)",
  maxMediaSeconds: "a positive integer of seconds or null (the engine's limits only)",
  maxDocumentPages: "a positive integer of pages or null (the engine's limits only)",
  apiCallsPerMonth: 'a non-negative integer or null (not metered)',
  priority: 'an integer from 0 to 1000000',
  batch: 'a boolean',
  maxBatchJobs: 'a non-negative integer, at least 1 when batch is true',
  uploadRequestsPerMinute: 'a positive integer of requests or null (no rate limit)',
  requestsPerMinute: 'a positive integer of requests or null (no rate limit)',
};

/**
 * Changes to one plan; a plan not in the base table needs every field but `name` and those of
 * OPTIONAL_PLAN_FIELDS (their defaults when left out).
 */
export type PlanOverride = Partial<Omit<Plan, 'name'>>;

export interface DefinePlansOptions {
  /** Start from an empty table instead of DEFAULT_PLANS, so `overrides` is the whole table. Default false. */
  replace?: boolean;
}

/**
 * Fields added after the first release, for a host's own plan written before them. The budgets
 * get null (no limit). The request rates get the specification's 20 and 60 a minute, not null:
 * before plans had rates every request was held to those per IP, so an old table keeps the
 * same numbers (now per account for keyed callers) instead of silently losing its throttle.
 */
const OPTIONAL_PLAN_FIELDS = {
  uploadBytesPerHour: null,
  uploadRetentionSeconds: null,
  maxWorkPixels: null,
  maxMediaSeconds: null,
  maxDocumentPages: null,
  uploadRequestsPerMinute: 20,
  requestsPerMinute: 60,
} as const satisfies Partial<Plan>;

function planError(plan: string, field: string, message: string, given?: unknown): FileconvError {
  const where = field ? `plan "${plan}" field "${field}"` : `plan "${plan}"`;
  const got = given === undefined ? '' : `, got ${JSON.stringify(given) ?? String(given)}`;
  return new FileconvError('INVALID_OPTIONS', `definePlans: ${where} ${message}${got}.`, {
    details: { plan, field, ...(given === undefined ? {} : { given: String(given) }) },
  });
}

/**
 * A validated, frozen plan table: DEFAULT_PLANS with `overrides` merged in field by field, or
 * exactly `overrides` with `{ replace: true }`. Fails fast naming the plan and the field. Every
 * table has a 'free' plan, the plan of callers without a key.
 */
export function definePlans(
  overrides: Readonly<Record<string, PlanOverride>> = {},
  options: DefinePlansOptions = {},
): PlanTable {
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) {
    throw new FileconvError('INVALID_OPTIONS', 'definePlans: overrides must be an object of plans by name.');
  }
  const base: PlanTable = options.replace ? {} : DEFAULT_PLANS;
  const table: Record<string, Plan> = {};
  for (const [name, plan] of Object.entries(base)) table[name] = { ...plan };
  for (const [name, override] of Object.entries(overrides)) {
    if (!PLAN_NAME.test(name)) {
      throw planError(
        name,
        '',
        'has an invalid name: use 1-32 of a-z, 0-9, "_" or "-", starting with a letter',
      );
    }
    if (override === null || typeof override !== 'object' || Array.isArray(override)) {
      throw planError(name, '', 'must be an object of plan fields');
    }
    const givenName = (override as { name?: unknown }).name;
    if (givenName !== undefined && givenName !== name) {
      throw planError(name, 'name', 'must equal the key it is stored under', givenName);
    }
    // A plan from before these fields existed (a host's own table) gets their defaults.
    table[name] = { ...OPTIONAL_PLAN_FIELDS, ...table[name], ...override, name } as Plan;
  }
  for (const [name, plan] of Object.entries(table)) {
    const result = planSchema.safeParse(plan);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      if (issue.code === 'unrecognized_keys')
        throw planError(name, issue.keys[0] ?? '', 'is not a plan field');
      const field = String(issue.path[0] ?? '');
      const given = (plan as unknown as Record<string, unknown>)[field];
      const expected = EXPECTED[field as keyof Plan] ?? issue.message;
      if (given === undefined) throw planError(name, field, `is required: ${expected}`);
      throw planError(name, field, `must be ${expected}`, given);
    }
  }
  if (!table[FREE_PLAN]) throw planError(FREE_PLAN, '', 'is required: it applies to callers without a key');
  return deepFreeze(table);
}

/** The plan called `name`; INTERNAL when the table has none (a key naming a removed plan is our fault). */
export function getPlan(table: PlanTable, name: string): Readonly<Plan> {
  const plan = Object.hasOwn(table, name) ? table[name] : undefined;
  if (!plan) {
    throw new FileconvError(
      'INTERNAL',
      `Unknown plan "${name}"; known plans: ${Object.keys(table).join(', ')}.`,
      {
        details: { plan: name },
      },
    );
  }
  return plan;
}

/** The plan's work budgets as a job carries them (its null fields: no budget). */
export function workLimitsOf(plan: Readonly<Plan>): WorkLimits {
  const limits: WorkLimits = {};
  if (plan.maxWorkPixels !== null) limits.maxWorkPixels = plan.maxWorkPixels;
  if (plan.maxMediaSeconds !== null) limits.maxMediaSeconds = plan.maxMediaSeconds;
  if (plan.maxDocumentPages !== null) limits.maxDocumentPages = plan.maxDocumentPages;
  return limits;
}

/** How long the plan's unconverted uploads are kept, ms; undefined: the engine's default. */
export function uploadRetentionMsOf(plan: Readonly<Plan>): number | undefined {
  return plan.uploadRetentionSeconds === null ? undefined : plan.uploadRetentionSeconds * 1000;
}

/** Whether the table has a plan called `name`. */
export function hasPlan(table: PlanTable, name: string): boolean {
  return Object.hasOwn(table, name);
}

/** FILE_TOO_LARGE when `size` bytes is over the plan's limit. */
export function assertFileSize(plan: Readonly<Plan>, size: number): void {
  if (size > plan.maxFileBytes) throw planFileTooLarge(plan, size);
}

/**
 * FILE_TOO_LARGE for a file over the plan's limit, naming the plan: `size` when it is known (a
 * declared size), absent when the bytes were cut off at the limit (`cause`: that refusal).
 */
export function planFileTooLarge(plan: Readonly<Plan>, size?: number, cause?: unknown): FileconvError {
  return fileTooLarge({
    limit: plan.maxFileBytes,
    ...(size === undefined ? {} : { size }),
    setBy: `the ${plan.label} plan`,
    details: { plan: plan.name },
    cause,
  });
}

/** PLAN_FEATURE_REQUIRED unless the plan may submit a batch of `jobs` jobs. */
export function assertBatchAllowed(plan: Readonly<Plan>, jobs: number): void {
  if (!plan.batch) {
    throw new FileconvError(
      'PLAN_FEATURE_REQUIRED',
      `Batch conversion is not part of the ${plan.label} plan.`,
      {
        details: { feature: 'batch', plan: plan.name },
      },
    );
  }
  if (jobs > plan.maxBatchJobs) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `A batch may hold at most ${plan.maxBatchJobs} jobs on the ${plan.label} plan; got ${jobs}.`,
      { details: { limit: plan.maxBatchJobs, jobs, plan: plan.name } },
    );
  }
}
