/**
 * Lazy loaders for the image engines (sharp, heic-decode). They are imported on first use only,
 * so `import 'fileconv'` stays light, and a missing package becomes an ENGINE_UNAVAILABLE error
 * that names what to install instead of a bare "Cannot find module".
 */
import { createRequire } from 'node:module';
import { FileconvError } from '../../core/errors.js';
import { isModuleNotFound, npmInstall } from '../engine-packages.js';

/** sharp's default export: the function that starts a pipeline, with its static helpers. */
export type SharpFactory = typeof import('sharp')['default'];

/** The part of heic-decode's API this project uses (the package ships no types). */
export interface HeicImageHandle {
  width: number;
  height: number;
  decode(): Promise<{ width: number; height: number; data: Uint8ClampedArray }>;
}
export interface HeicDecodeModule {
  all(input: { buffer: Uint8Array }): Promise<HeicImageHandle[] & { dispose(): void }>;
}

export function engineUnavailable(pkg: string, purpose: string, cause: unknown): FileconvError {
  return new FileconvError(
    'ENGINE_UNAVAILABLE',
    `The sharp converter needs the npm package '${pkg}' for ${purpose}: run \`${npmInstall(pkg)}\``,
    { cause, details: { package: pkg, install: npmInstall(pkg) } },
  );
}

let sharpPromise: Promise<SharpFactory> | undefined;

/** Whether this process is fileconv's own (serve, worker): see releaseSharpCache. */
let cacheReleased = false;

/**
 * Turns libvips' operation cache off in this process, now or when sharp loads. sharp keeps the
 * last 100 operations and up to 50 MB of their pixels for reuse; a conversion service never
 * converts one input twice, so in the processes fileconv owns it is memory held for nothing (60
 * 2400x1800 JPEG -> WebP, 2 at a time: 27-49 MB less RSS without it). Only `fileconv serve` and
 * `fileconv worker` call this: the cache is process-wide, and an embedding host's may be its own.
 */
export function releaseSharpCache(): void {
  cacheReleased = true;
  void sharpPromise?.then((sharp) => sharp.cache(false)).catch(() => {});
}

/**
 * sharp from its CommonJS build, which `require('sharp')` loads: its ESM build (what `import`
 * picks) is the same code as nine more modules through the ESM loader, and made a one-file
 * `fileconv convert` slower than `node -e "require('sharp')..."` by more than the whole CLI's own
 * start (the commit that chose it has the measurement). Both builds export the same function.
 */
async function importSharp(): Promise<SharpFactory> {
  return createRequire(import.meta.url)('sharp') as SharpFactory;
}

/** sharp's default export; ENGINE_UNAVAILABLE when it is missing or its native part fails to load. */
export function loadSharp(): Promise<SharpFactory> {
  if (sharpPromise) return sharpPromise;
  sharpPromise = importSharp().then(
    (sharp) => {
      if (cacheReleased) sharp.cache(false);
      return sharp;
    },
    (error: unknown) => {
      sharpPromise = undefined; // let a later call retry, e.g. after an install
      if (isModuleNotFound(error)) throw engineUnavailable('sharp', 'image conversion', error);
      // Installed, but its native binary for this platform is missing or broken: sharp ships it
      // as an optional dependency (@img/sharp-<platform>), which --omit=optional leaves out.
      const install = npmInstall('sharp', '--include=optional');
      throw new FileconvError(
        'ENGINE_UNAVAILABLE',
        `sharp is installed but failed to load on ${process.platform}-${process.arch} (its native binary, an optional dependency, is missing or broken): run \`${install}\``,
        { cause: error, details: { package: 'sharp', install } },
      );
    },
  );
  return sharpPromise;
}

let heicPath: string | undefined;

/**
 * Where heic-decode is installed; ENGINE_UNAVAILABLE when it is not. Resolving loads nothing: the
 * decoder (2 MB of JavaScript and WebAssembly) is loaded by the worker thread only (heic.ts), so
 * checking availability on the main thread costs neither time nor memory.
 */
export function resolveHeicDecode(): string {
  try {
    heicPath ??= createRequire(import.meta.url).resolve('heic-decode');
    return heicPath;
  } catch (error) {
    throw engineUnavailable('heic-decode', 'HEIC/HEIF input', error);
  }
}

let heicPromise: Promise<HeicDecodeModule> | undefined;

/**
 * heic-decode (libheif compiled to WebAssembly): the prebuilt libvips cannot decode HEVC. Called in
 * the decoder's worker thread (heic-wasm.ts), never on the main thread of a service.
 */
export function loadHeicDecode(): Promise<HeicDecodeModule> {
  // A variable specifier: the package has no type declarations, and this keeps tsc from asking for them.
  if (heicPromise) return heicPromise;
  const specifier = 'heic-decode';
  heicPromise = import(specifier).then(
    (module: { default: HeicDecodeModule }) => module.default,
    (error: unknown) => {
      heicPromise = undefined;
      throw engineUnavailable('heic-decode', 'HEIC/HEIF input', error);
    },
  );
  return heicPromise;
}
