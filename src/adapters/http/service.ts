/**
 * The HTTP service as hosts create it (`createHttpService` of fileconv/http, and every framework
 * shim): the framework-neutral service (src/service/) with the adapters it falls back on when the
 * host gives none, an in-memory Idempotency-Key store, right for one API process only.
 */

import { buildHttpService, type HttpService, type HttpServiceOptions } from '../../service/service.js';
import type { ServiceEngine } from '../../service/service-engine.js';
import { createMemoryIdempotencyStore } from '../idempotency/memory.js';

export function createHttpService(engine: ServiceEngine, options: HttpServiceOptions = {}): HttpService {
  return buildHttpService(engine, options, { idempotencyStore: () => createMemoryIdempotencyStore() });
}
