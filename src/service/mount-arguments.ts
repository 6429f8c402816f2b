/**
 * The checks every HTTP adapter's factory runs on its two arguments before anything is built:
 * a host that forgets the second argument, passes the preset itself instead of its job engine,
 * or gives a secret of the wrong type hears it at mount time as CONFIG (a 500: the host's
 * mistake, never a client's), with the argument named and the correct call shown.
 */
import { FileconvError } from '../core/errors.js';
import { MIN_SECRET_BYTES, signingKey } from '../core/signing.js';
import type { HttpServiceOptions } from './service.js';
import type { ServiceEngine } from './service-engine.js';

/** The factories hosts mount the service with; each names itself in the errors below. */
export type MountEntryPoint =
  | 'createHttpService'
  | 'createHttpRouter'
  | 'createNodeHandler'
  | 'createFetchHandler'
  | 'createFastifyPlugin';

/** Throws CONFIG when `engine` or `options` is not what `entryPoint(engine, options)` needs. */
export function checkMountArguments(
  entryPoint: MountEntryPoint,
  engine: unknown,
  options: unknown,
): asserts engine is ServiceEngine {
  const call = correctCall(entryPoint);
  if (!isServiceEngine(engine)) {
    // The preset's own object has `jobs`: the likeliest slip is passing it whole.
    const hint =
      isObject(engine) && 'jobs' in engine && 'http' in engine ? ' (pass fileconv.jobs, not fileconv)' : '';
    throw mountError(entryPoint, `the first argument must be the job engine${hint}. Call it as ${call}.`);
  }
  if (options !== undefined && !isObject(options)) {
    throw mountError(
      entryPoint,
      `the second argument must be the options object, got ${describe(options)}. Call it as ${call}.`,
    );
  }
  const secret = (options as HttpServiceOptions | undefined)?.signingSecret;
  if (secret === undefined) {
    // Storage that presigns both ways (S3) signs its own URLs: nothing for the secret to sign.
    if (engine.storage?.presignPut && engine.storage.presignGet) return;
    const missing =
      options === undefined
        ? 'the second argument (the options) is missing'
        : 'options.signingSecret is missing';
    throw mountError(
      entryPoint,
      `${missing}: it signs upload and download URLs (${MIN_SECRET_BYTES}+ bytes) unless storage presigns them. Call it as ${call}.`,
    );
  }
  if (typeof secret !== 'string' && !(secret instanceof Uint8Array)) {
    throw mountError(
      entryPoint,
      `options.signingSecret must be a string or a Uint8Array, got ${describe(secret)}.`,
    );
  }
  try {
    signingKey(secret);
  } catch (cause) {
    throw mountError(entryPoint, `options.signingSecret: ${(cause as Error).message}`, cause);
  }
}

function mountError(entryPoint: MountEntryPoint, message: string, cause?: unknown): FileconvError {
  return new FileconvError(
    'CONFIG',
    `${entryPoint}: ${message}`,
    cause === undefined ? undefined : { cause },
  );
}

/** How to call `entryPoint`, with the preset and without it. */
function correctCall(entryPoint: MountEntryPoint): string {
  const name = entryPoint === 'createFastifyPlugin' ? `app.register(${entryPoint}` : entryPoint;
  const close = entryPoint === 'createFastifyPlugin' ? '))' : ')';
  return `${name}(fileconv.jobs, fileconv.http${close} with createFileconv(), or ${name}(engine, { signingSecret }${close}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isServiceEngine(value: unknown): value is ServiceEngine {
  return isObject(value) && typeof value.createJob === 'function' && typeof value.workerStatus === 'function';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
