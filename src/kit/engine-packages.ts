/**
 * The npm packages behind each engine and optional feature. fileconv itself depends on sharp
 * (images) and small pure-JS libraries only; everything else is an optional peer dependency,
 * installed by whoever needs it, so an images-only project does not download PDF renderers,
 * spreadsheet parsers, ffmpeg.wasm (GPL) or cloud SDKs. Each engine's "not installed" error and
 * `fileconv doctor` name the one command that installs the whole group.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileconvError } from '../core/errors.js';
import type { Availability } from '../core/ports/index.js';

export const ENGINE_PACKAGES = {
  pdf: ['pdfjs-dist', 'pdf-lib'],
  exceljs: ['exceljs', 'csv-parse'],
  mammoth: ['mammoth', 'turndown'],
  text: ['marked', 'turndown', 'pdf-lib', '@pdf-lib/fontkit', 'dejavu-fonts-ttf', 'regenerator-runtime'],
  data: ['yaml', 'fast-xml-parser', 'smol-toml'],
  chromium: ['playwright-core'],
  'ffmpeg.wasm': ['@ffmpeg/core'],
  database: ['better-sqlite3'],
  s3: ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/s3-request-presigner'],
  redis: ['ioredis', 'bullmq'],
  express: ['express'],
  fastify: ['fastify'],
  metrics: ['prom-client'],
  'pretty logs': ['pino-pretty'],
  telemetry: ['@opentelemetry/api'],
} as const satisfies Record<string, readonly string[]>;

export type EngineGroup = keyof typeof ENGINE_PACKAGES;

/**
 * Whether this fileconv is a global npm install (`npm install -g fileconv`): its package sits in
 * <prefix>/lib/node_modules (npm's layout on Linux and macOS) or %AppData%\npm\node_modules
 * (Windows). A package it asks for must then go there too: `npm install yaml` in the current
 * folder is never seen by a global fileconv.
 */
const GLOBAL_INSTALL = [`${sep}lib${sep}node_modules${sep}`, `${sep}npm${sep}node_modules${sep}`].some(
  (layout) => fileURLToPath(import.meta.url).includes(`${layout}fileconv${sep}`),
);

/**
 * The command that installs `packages` where this fileconv finds them: `npm install <packages>`,
 * with `-g` when fileconv is installed globally. Every install line of an npm package is made
 * here (`flags` such as `--include=optional` go before the names).
 */
export function npmInstall(packages: readonly string[] | string, flags = ''): string {
  const names = typeof packages === 'string' ? packages : packages.join(' ');
  return ['npm install', GLOBAL_INSTALL ? '-g' : '', flags, names].filter(Boolean).join(' ');
}

/** `npm install <every package of the group>`. */
export function installLine(group: EngineGroup): string {
  return npmInstall(ENGINE_PACKAGES[group]);
}

/**
 * Whether `pkg` is installed where this module can see it: its package.json on the module lookup
 * path. Nothing is loaded (a PDF renderer is not parsed to answer `doctor`), and packages whose
 * `exports` hide package.json or lack a `require` condition are found all the same.
 */
export function isInstalled(pkg: string): boolean {
  const require = createRequire(import.meta.url);
  return (require.resolve.paths(pkg) ?? []).some((dir) => existsSync(join(dir, pkg, 'package.json')));
}

/** Those of `packages` (the npm packages an edge loads: ConversionEdge.packages) not installed here. */
export function absentPackages(packages: readonly string[] | undefined): string[] {
  return (packages ?? []).filter((pkg) => !isInstalled(pkg));
}

/** The group's packages that are not installed. */
export function missingPackages(group: EngineGroup): string[] {
  return ENGINE_PACKAGES[group].filter((pkg) => !isInstalled(pkg));
}

/** The availability of an engine whose `missing` packages are not installed. */
export function notInstalled(group: EngineGroup, missing: readonly string[]): Availability {
  return { ok: false, reason: `not installed: ${missing.join(', ')}`, install: installLine(group) };
}

/**
 * An error's message as one line, for a reason or message of our own: its first line, so never
 * the "Require stack" (this machine's file paths) Node appends to a module it could not resolve,
 * nor a stack. Every loader's failure becomes an availability reason through here.
 */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split(/\r?\n/, 1)[0] ?? '').trim();
}

/** The availability of a step whose `missing` packages (of the few it loads) are not installed. */
export function stepPackagesMissing(missing: readonly string[]): Availability {
  return {
    ok: false,
    reason: `not installed: ${missing.join(', ')}`,
    install: npmInstall(missing),
  };
}

/** Whether `error` (or what caused it: loaders and module mocks wrap it) is "module not found". */
export function isModuleNotFound(error: unknown): boolean {
  for (let at = error, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
  }
  return false;
}

/**
 * ENGINE_UNAVAILABLE for `pkg` of `group`, which failed to import (`cause`) while needed for
 * `purpose`: the message says whether it is missing or broken, and the install line covers the
 * whole group, so one command makes the engine work.
 */
export function packageUnavailable(
  group: EngineGroup,
  pkg: string,
  purpose: string,
  cause: unknown,
): FileconvError {
  const install = installLine(group);
  const problem = isModuleNotFound(cause) ? 'is not installed' : 'failed to load';
  return new FileconvError(
    'ENGINE_UNAVAILABLE',
    `The ${group} engine needs the npm package '${pkg}' for ${purpose}, which ${problem}: run \`${install}\``,
    { cause, details: { package: pkg, install } },
  );
}
