/**
 * The contracts adapters implement. Each is small on purpose: the required members are what
 * the engine cannot work without, optional members are capabilities the engine uses when
 * present and emulates (or does without) when absent. Conformance suites for every port ship
 * in `fileconv/testing`. One file per port.
 */

export type { OutputPackaging } from '../formats/types.js';
export type { ConversionLimits, WorkLimits } from '../work-limits.js';
export type * from './converter.js';
export type * from './counters.js';
export type * from './idempotency.js';
export type * from './job-store.js';
export type * from './keys.js';
export type * from './operation.js';
export type * from './outbox.js';
export type * from './queue.js';
export type * from './storage.js';
