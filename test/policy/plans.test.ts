import { describe, expect, it } from 'vitest';
import {
  assertBatchAllowed,
  assertFileSize,
  DEFAULT_PLANS,
  definePlans,
  GB,
  getPlan,
  hasPlan,
  MB,
  uploadRetentionMsOf,
  workLimitsOf,
} from '../../src/core/policy/plans.js';

describe('DEFAULT_PLANS', () => {
  it('counts sizes in binary units: 25 MB is 26,214,400 bytes', () => {
    expect(MB).toBe(1_048_576);
    expect(GB).toBe(1_073_741_824);
    expect(DEFAULT_PLANS.free!.maxFileBytes).toBe(26_214_400);
  });

  // name, label, per day, file bytes, upload bytes/h, retention s, work pixels, media s, pages,
  // API calls, priority, batch, batch jobs, upload-class and other requests a minute
  it.each([
    ['free', 'Free', 5, 25 * MB, 100 * MB, 900, 1e10, 600, 100, null, 0, false, 0, 20, 60],
    ['plus', 'Plus', 100, 100 * MB, 2 * GB, null, 1e11, 10_800, 1_000, 1_000, 5, false, 0, 60, 300],
    ['pro', 'Pro', null, 2 * GB, 20 * GB, null, 1e12, null, 10_000, 10_000, 10, true, 20, 300, 1_200],
    [
      'business',
      'Business',
      null,
      5 * GB,
      100 * GB,
      null,
      null,
      null,
      null,
      50_000,
      15,
      true,
      50,
      1_000,
      3_000,
    ],
    [
      'enterprise',
      'Enterprise',
      null,
      10 * GB,
      null,
      null,
      null,
      null,
      null,
      100_000,
      20,
      true,
      100,
      3_000,
      10_000,
    ],
  ])(
    '%s has the specified and documented values',
    (name, label, perDay, bytes, uploadBytes, retention, work, media, pages, calls, priority, batch, maxBatch, uploadRate, rate) => {
      expect(getPlan(DEFAULT_PLANS, name)).toEqual({
        name,
        label,
        conversionsPerDay: perDay,
        maxFileBytes: bytes,
        filesPerHour: null,
        uploadBytesPerHour: uploadBytes,
        uploadRetentionSeconds: retention,
        maxWorkPixels: work,
        maxMediaSeconds: media,
        maxDocumentPages: pages,
        apiCallsPerMonth: calls,
        priority,
        batch,
        maxBatchJobs: maxBatch,
        uploadRequestsPerMinute: uploadRate,
        requestsPerMinute: rate,
      });
    },
  );

  it("gives every paid plan more than Free's request rates, each plan more than the one before", () => {
    const plans = ['free', 'plus', 'pro', 'business', 'enterprise'].map((name) =>
      getPlan(DEFAULT_PLANS, name),
    );
    expect([plans[0]!.uploadRequestsPerMinute, plans[0]!.requestsPerMinute]).toEqual([20, 60]); // the specification's
    for (let n = 1; n < plans.length; n++) {
      expect(plans[n]!.uploadRequestsPerMinute).toBeGreaterThan(
        plans[n - 1]!.uploadRequestsPerMinute ?? Infinity,
      );
      expect(plans[n]!.requestsPerMinute).toBeGreaterThan(plans[n - 1]!.requestsPerMinute ?? Infinity);
    }
  });

  it('ranks every paid plan above Free, each above the one before', () => {
    const priorities = ['free', 'plus', 'pro', 'business', 'enterprise'].map(
      (name) => getPlan(DEFAULT_PLANS, name).priority,
    );
    expect(priorities).toEqual([...priorities].sort((a, b) => a - b));
    expect(new Set(priorities).size).toBe(5);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(DEFAULT_PLANS)).toBe(true);
    expect(Object.isFrozen(DEFAULT_PLANS.pro)).toBe(true);
  });
});

describe('workLimitsOf and uploadRetentionMsOf', () => {
  it("carry a plan's budgets to its jobs, leaving out the ones it has none of", () => {
    expect(workLimitsOf(DEFAULT_PLANS.free!)).toEqual({
      maxWorkPixels: 1e10,
      maxMediaSeconds: 600,
      maxDocumentPages: 100,
    });
    expect(workLimitsOf(DEFAULT_PLANS.pro!)).toEqual({ maxWorkPixels: 1e12, maxDocumentPages: 10_000 });
    expect(workLimitsOf(DEFAULT_PLANS.enterprise!)).toEqual({});
    expect(uploadRetentionMsOf(DEFAULT_PLANS.free!)).toBe(900_000);
    expect(uploadRetentionMsOf(DEFAULT_PLANS.plus!)).toBeUndefined();
  });
});

describe('definePlans', () => {
  it('returns the defaults when given nothing', () => {
    expect(definePlans()).toEqual(DEFAULT_PLANS);
  });

  it('changes single fields and keeps the rest', () => {
    const plans = definePlans({ business: { conversionsPerDay: 2_000, filesPerHour: 500 } });
    expect(plans.business).toMatchObject({
      conversionsPerDay: 2_000,
      filesPerHour: 500,
      maxFileBytes: 5 * GB,
    });
    expect(plans.pro).toEqual(DEFAULT_PLANS.pro);
    expect(Object.isFrozen(plans.business)).toBe(true);
    expect(DEFAULT_PLANS.business!.conversionsPerDay).toBeNull();
  });

  it('adds a complete new plan', () => {
    const team = {
      label: 'Team',
      conversionsPerDay: 1_000,
      maxFileBytes: 500 * MB,
      filesPerHour: 100,
      apiCallsPerMonth: 20_000,
      priority: 12,
      batch: true,
      maxBatchJobs: 10,
    };
    // Left out, the later budgets are none and the request rates the specification's 20 and 60
    // a minute, the rates such a plan had before plans had their own (a host's table from before
    // they existed still loads, and keeps its throttle).
    expect(definePlans({ team }).team).toEqual({
      name: 'team',
      uploadBytesPerHour: null,
      uploadRetentionSeconds: null,
      maxWorkPixels: null,
      maxMediaSeconds: null,
      maxDocumentPages: null,
      uploadRequestsPerMinute: 20,
      requestsPerMinute: 60,
      ...team,
    });
  });

  it('loads a whole old-style table (replace) whose plans have no request rates, and sets rates', () => {
    const old = (name: string) => {
      const {
        uploadRequestsPerMinute,
        requestsPerMinute,
        uploadBytesPerHour,
        name: _,
        ...rest
      } = DEFAULT_PLANS[name]!;
      return rest;
    };
    const plans = definePlans(
      { free: old('free'), gold: { ...old('pro'), label: 'Gold' } },
      { replace: true },
    );
    expect(Object.keys(plans)).toEqual(['free', 'gold']);
    expect(plans.gold).toMatchObject({
      uploadRequestsPerMinute: 20,
      requestsPerMinute: 60,
      uploadBytesPerHour: null,
    });
    // Given, they are used; null lifts the rate limit.
    const rated = definePlans({
      gold: { ...old('pro'), label: 'Gold', uploadRequestsPerMinute: 500, requestsPerMinute: null },
    });
    expect(rated.gold).toMatchObject({ uploadRequestsPerMinute: 500, requestsPerMinute: null });
    expect(definePlans({ pro: { requestsPerMinute: 5_000 } }).pro).toMatchObject({
      uploadRequestsPerMinute: 300,
      requestsPerMinute: 5_000,
    });
  });

  it('replaces the whole table, which must still have a free plan', () => {
    const free = { ...DEFAULT_PLANS.free!, conversionsPerDay: 3 };
    const plans = definePlans({ free }, { replace: true });
    expect(Object.keys(plans)).toEqual(['free']);
    expect(plans.free!.conversionsPerDay).toBe(3);
    expect(() => definePlans({ pro: DEFAULT_PLANS.pro! }, { replace: true })).toThrow(
      /plan "free" is required/,
    );
  });

  it.each([
    [
      { plus: { maxFileBytes: -1 } },
      /plan "plus" field "maxFileBytes" must be a positive integer of bytes, got -1/,
    ],
    [{ plus: { maxFileBytes: 0 } }, /plan "plus" field "maxFileBytes"/],
    [
      { pro: { conversionsPerDay: 1.5 } },
      /plan "pro" field "conversionsPerDay" must be .* or null \(unlimited\), got 1\.5/,
    ],
    [{ pro: { apiCallsPerMonth: '10000' as never } }, /plan "pro" field "apiCallsPerMonth"/],
    [
      { free: { batch: true } },
      /plan "free" field "maxBatchJobs" must be a non-negative integer, at least 1 when batch is true, got 0/,
    ],
    [{ free: { label: '' } }, /plan "free" field "label"/],
    [{ free: { priority: -1 } }, /plan "free" field "priority"/],
    [{ free: { colour: 'red' } as never }, /plan "free" field "colour" is not a plan field/],
    [
      { team: { label: 'Team' } },
      /plan "team" field "conversionsPerDay" is required: a non-negative integer or null/,
    ],
    [{ 'Bad Name': {} }, /plan "Bad Name" has an invalid name/],
    [{ plus: { name: 'pro' } as never }, /plan "plus" field "name" must equal the key/],
    [{ plus: null as never }, /plan "plus" must be an object/],
    [
      { free: { maxWorkPixels: 0 } },
      /plan "free" field "maxWorkPixels" must be a positive integer of pixels or null/,
    ],
    [{ free: { maxMediaSeconds: 1.5 } }, /plan "free" field "maxMediaSeconds"/],
    [{ free: { maxDocumentPages: -3 } }, /plan "free" field "maxDocumentPages"/],
    [{ free: { uploadRetentionSeconds: '60' as never } }, /plan "free" field "uploadRetentionSeconds"/],
    [
      { pro: { uploadRequestsPerMinute: 0 } },
      /plan "pro" field "uploadRequestsPerMinute" must be a positive integer of requests or null \(no rate limit\), got 0/,
    ],
    [
      { pro: { requestsPerMinute: 2.5 } },
      /plan "pro" field "requestsPerMinute" must be a positive integer of requests or null \(no rate limit\), got 2\.5/,
    ],
    [
      { plus: { requestsPerMinute: '300' as never } },
      /plan "plus" field "requestsPerMinute" must be .*, got "300"/,
    ],
  ])('fails fast naming the plan and field: %j', (overrides, message) => {
    expect(() => definePlans(overrides)).toThrow(message);
    try {
      definePlans(overrides);
    } catch (error) {
      expect(error).toMatchObject({ code: 'INVALID_OPTIONS' });
    }
  });

  it('refuses overrides that are not an object', () => {
    expect(() => definePlans([] as never)).toThrow(/overrides must be an object/);
  });
});

describe('getPlan and hasPlan', () => {
  it('throws INTERNAL naming the known plans for an unknown name, own keys only', () => {
    expect(() => getPlan(DEFAULT_PLANS, 'gold')).toThrow(/Unknown plan "gold"; known plans: free, plus, pro/);
    expect(() => getPlan(DEFAULT_PLANS, 'toString')).toThrow(/Unknown plan/);
    expect(hasPlan(DEFAULT_PLANS, 'pro')).toBe(true);
    expect(hasPlan(DEFAULT_PLANS, '__proto__')).toBe(false);
  });
});

describe('plan checks', () => {
  it('allows a file of exactly the limit and refuses one byte more with FILE_TOO_LARGE', () => {
    const free = DEFAULT_PLANS.free!;
    expect(() => assertFileSize(free, 25 * MB)).not.toThrow();
    expect(() => assertFileSize(free, 25 * MB + 1)).toThrow(
      expect.objectContaining({
        code: 'FILE_TOO_LARGE',
        status: 413,
        details: expect.objectContaining({ limit: 25 * MB }),
      }),
    );
  });

  it('refuses batches on plans without them with PLAN_FEATURE_REQUIRED and caps their size', () => {
    expect(() => assertBatchAllowed(DEFAULT_PLANS.plus!, 2)).toThrow(
      expect.objectContaining({ code: 'PLAN_FEATURE_REQUIRED', status: 403 }),
    );
    expect(() => assertBatchAllowed(DEFAULT_PLANS.pro!, 20)).not.toThrow();
    expect(() => assertBatchAllowed(DEFAULT_PLANS.pro!, 21)).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST' }),
    );
  });
});
