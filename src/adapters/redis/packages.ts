/**
 * Lazy loaders for the Redis adapters' packages: ioredis and bullmq are imported on first use
 * only, so `import 'fileconv'` and the adapters' modules stay light, and a missing package
 * becomes an ENGINE_UNAVAILABLE error naming `npm install bullmq ioredis`.
 */
import type { Redis } from 'ioredis';
import { FileconvError } from '../../core/errors.js';
import { isModuleNotFound, npmInstall } from '../../kit/engine-packages.js';

export type BullmqModule = typeof import('bullmq');

/** The command that installs what every Redis adapter needs. */
export const REDIS_INSTALL = npmInstall(['bullmq', 'ioredis']);

function packageUnavailable(pkg: string, adapter: string, error: unknown): FileconvError {
  const problem = isModuleNotFound(error) ? 'is not installed' : 'failed to load';
  return new FileconvError(
    'ENGINE_UNAVAILABLE',
    `${adapter} needs the npm package '${pkg}', which ${problem}: run \`${REDIS_INSTALL}\``,
    { cause: error, details: { adapter, package: pkg, install: REDIS_INSTALL } },
  );
}

let ioredisPromise: Promise<typeof Redis> | undefined;

/** The ioredis client class; ENGINE_UNAVAILABLE when the package is missing. */
export function loadIoredis(adapter: string): Promise<typeof Redis> {
  ioredisPromise ??= import('ioredis').then(
    (module) => module.Redis ?? (module.default as unknown as typeof Redis),
    (error: unknown) => {
      ioredisPromise = undefined; // a later call may succeed, e.g. after an install
      throw error;
    },
  );
  return ioredisPromise.catch((error: unknown) => {
    throw packageUnavailable('ioredis', adapter, error);
  });
}

let bullmqPromise: Promise<BullmqModule> | undefined;

/** The bullmq module; ENGINE_UNAVAILABLE when the package is missing. */
export function loadBullmq(adapter: string): Promise<BullmqModule> {
  bullmqPromise ??= import('bullmq').catch((error: unknown) => {
    bullmqPromise = undefined;
    throw error;
  });
  return bullmqPromise.catch((error: unknown) => {
    throw packageUnavailable('bullmq', adapter, error);
  });
}
