/**
 * `fileconv/testing`: the conformance suites every adapter runs, for host apps that write
 * their own Storage, JobStore, Queue, CounterStore, KeyStore, IdempotencyStore, WebhookOutbox or Converter, plus the package's
 * fixtures and a deterministic fake converter. Each suite is a vitest `describe` block; call it at
 * the top level of a test file with a factory that makes a fresh adapter per test:
 *
 *   testStorage('my storage', async () => ({ adapter: await createMyStorage(), cleanup: dropBucket }));
 *
 * vitest is an optional peer dependency, needed only when this module is imported.
 */
export {
  type BadInput,
  badImageInputs,
  pngClaiming,
  svgWithExternalReferences,
  truncated,
} from './bad-inputs.js';
export {
  type ConverterSample,
  type ConverterSuiteOptions,
  INPUT_ERROR_CODES,
  testConverter,
} from './converter.js';
export { testCounterStore } from './counters.js';
export { createFakeConverter, type FakeConverterOptions, fakeOutputHeader } from './fake-converter.js';
export { encryptedFixtures, FIXTURES_DIR, fixturePath, fixtures } from './fixtures.js';
export type { AdapterFactory, AdapterInstance } from './fresh-instance.js';
export {
  type HttpFrameworkLimits,
  type HttpMountSetup,
  type HttpSuiteOptions,
  type HttpSuiteServiceOptions,
  type MountedHttpService,
  testHttpService,
} from './http.js';
export { testIdempotencyStore } from './idempotency.js';
export { sampleFile, sampleJob, testJobStore } from './job-store.js';
export { sampleApiKeyRecord, testKeyStore } from './key-store.js';
export { sampleDelivery, testWebhookOutbox } from './outbox.js';
export { type WithOptionsParsed, withOptionsParsed } from './parsed-options.js';
export { testQueue } from './queue.js';
export { type StorageSuiteOptions, testStorage } from './storage.js';
export { endlessStream, failingStream, patternStream, readAll, sha256 } from './streams.js';
