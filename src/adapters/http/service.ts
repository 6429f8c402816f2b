/**
 * The HTTP service as hosts create it (`createHttpService` of fileconv/http, and every framework
 * shim): its arguments checked at mount time, then the framework-neutral service (src/service/)
 * with the adapters it falls back on when the host gives none, an in-memory Idempotency-Key
 * store, right for one API process only.
 */

import { checkMountArguments, type MountEntryPoint } from '../../service/mount-arguments.js';
import { buildHttpService, type HttpService, type HttpServiceOptions } from '../../service/service.js';
import type { ServiceEngine } from '../../service/service-engine.js';
import { createMemoryIdempotencyStore } from '../idempotency/memory.js';

export function createHttpService(engine: ServiceEngine, options?: HttpServiceOptions): HttpService {
  return mountService('createHttpService', engine, options);
}

/**
 * The service an adapter's factory mounts: `engine` and `options` checked as `entryPoint` was
 * called with them (a CONFIG error names it), then `toServiceOptions` (an adapter's own typing
 * of a hook) applied and the service built.
 */
export function mountService<Options extends object>(
  entryPoint: MountEntryPoint,
  engine: ServiceEngine,
  options: Options | undefined,
  toServiceOptions: (options: Options) => HttpServiceOptions = (given) => given as HttpServiceOptions,
): HttpService {
  checkMountArguments(entryPoint, engine, options);
  return buildHttpService(engine, toServiceOptions(options ?? ({} as Options)), {
    idempotencyStore: () => createMemoryIdempotencyStore(),
  });
}
