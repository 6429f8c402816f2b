/**
 * Where `fileconv convert` writes each result, and in which format. The output is named once
 * (`-o`, or the positional output of one input) and means a file, a folder, a template with
 * {name} and {ext}, or `-` for stdout; without one, each result goes beside its input.
 */
import { mkdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { extensionOf, formatFromExtension, requireFormat } from '../../src/core/formats/index.js';
import { baseName } from '../../src/core/names.js';
import { UsageError } from './usage-error.js';

/** The standard streams on the command line: stdin as an input, stdout as the output. */
export const STDIO = '-';

export type OutputSpec =
  | { kind: 'beside' }
  | { kind: 'stdout' }
  | { kind: 'file'; path: string }
  | { kind: 'folder'; path: string }
  | { kind: 'template'; pattern: string };

const PLACEHOLDER = /\{(name|ext)\}/;

/**
 * What the output names. A positional output is always a file (an existing folder there is
 * OUTPUT_NOT_WRITABLE, as before); `-o` is a folder when it ends with a slash or is one.
 */
export async function outputSpecOf(
  positional: string | undefined,
  flag: string | undefined,
): Promise<OutputSpec> {
  if (positional !== undefined && flag !== undefined) {
    throw new UsageError(`Two outputs: "${positional}" and -o "${flag}"; give one.`);
  }
  if (positional !== undefined)
    return positional === STDIO ? { kind: 'stdout' } : { kind: 'file', path: positional };
  if (flag === undefined) return { kind: 'beside' };
  if (flag === STDIO) return { kind: 'stdout' };
  if (PLACEHOLDER.test(flag)) return { kind: 'template', pattern: flag };
  if (flag.endsWith('/') || flag.endsWith(sep)) return { kind: 'folder', path: flag };
  const existing = await stat(flag).catch(() => undefined);
  return existing?.isDirectory() ? { kind: 'folder', path: flag } : { kind: 'file', path: flag };
}

/** The file name an output spec fixes, whose extension may name the target; undefined when none does. */
function namedFile(spec: OutputSpec): string | undefined {
  if (spec.kind === 'file') return basename(spec.path);
  if (spec.kind === 'template' && !spec.pattern.includes('{ext}')) {
    return basename(spec.pattern.replaceAll('{name}', 'result'));
  }
  return undefined;
}

/** The format a file name's extension names; a name without a dot names none. */
function formatOfName(name: string): string | undefined {
  return name.includes('.') ? formatFromExtension(name)?.name : undefined;
}

/**
 * The target format: --to, else the output name's extension. An output whose extension names
 * another format than --to is refused: `convert a.jpg b.jpg --to webp` would write WebP bytes
 * into b.jpg. A .zip name is allowed, since several results (every page) come as one zip.
 */
export function targetFormatOf(spec: OutputSpec, to: string | undefined): string {
  const name = namedFile(spec);
  const named = name === undefined ? undefined : formatOfName(name);
  if (to === undefined) {
    if (named !== undefined) return named;
    throw new UsageError(
      name === undefined
        ? 'Give --to <format> (or an output file whose extension names the target).'
        : `Cannot tell the target format from "${name}": pass --to <format>.`,
    );
  }
  const target = requireFormat(to).name;
  if (named !== undefined && named !== target && named !== 'zip') {
    throw new UsageError(
      `The output "${name}" names a ${named} file but --to is ${target}. ` +
        'To convert several files, give them with -o <folder>/ (or -o "{name}.{ext}").',
    );
  }
  return target;
}

/** One input and where its result goes. */
export interface ConversionItem {
  /** A file's path, a web page's URL, or `-` (stdin). */
  input: string;
  /** How the input is named in the lines printed. */
  shown: string;
  /** The result's absolute path, or `-` (stdout). */
  output: string;
  /** Whether the user named the output file (else a zip of several results gets .zip). */
  named: boolean;
}

/** An input naming a web page rather than a file: a scheme of two letters or more (C:\ is a drive). */
export function isUrlInput(input: string): boolean {
  return /^[a-z][a-z0-9+.-]+:/i.test(input);
}

/** A file name for what a URL shows: its host ('example.com'), or 'page'. */
function siteName(url: string): string {
  try {
    return new URL(url).hostname.replace(/[^\w.-]/g, '_') || 'page';
  } catch {
    return 'page';
  }
}

/** The base name a result of `input` takes: the file's name without extension, the site, 'stdin'. */
function resultBaseName(input: string): string {
  if (input === STDIO) return 'stdin';
  if (isUrlInput(input)) return siteName(input);
  return baseName(basename(input));
}

/**
 * The item of one input. `folder` is the input's folder below the one the user named (found by
 * --recursive or a glob), kept under an output folder so that two a.png do not meet.
 */
export function itemOf(spec: OutputSpec, input: string, target: string, folder = ''): ConversionItem {
  const name = resultBaseName(input);
  const ext = extensionOf(target);
  const shown = input === STDIO ? 'stdin' : input;
  const item = (output: string, named: boolean): ConversionItem => ({ input, shown, output, named });
  switch (spec.kind) {
    case 'stdout':
      return item(STDIO, true);
    case 'file':
      return item(resolve(spec.path), true);
    case 'folder':
      return item(resolve(spec.path, folder, `${name}.${ext}`), false);
    case 'template':
      return item(resolve(spec.pattern.replaceAll('{name}', name).replaceAll('{ext}', ext)), true);
    case 'beside':
      if (input === STDIO) return item(STDIO, true);
      // A web page has no folder: its result lands here, named after the site.
      if (isUrlInput(input)) return item(resolve(`${name}.${ext}`), false);
      return item(join(dirname(resolve(input)), `${name}.${ext}`), false);
  }
}

/**
 * Makes the folders of outputs that -o names as a folder or a template (and the subfolders they
 * mirror): the user asked for results there. A named file's folder must exist already.
 */
export async function makeOutputFolders(spec: OutputSpec, outputs: readonly string[]): Promise<void> {
  if (spec.kind !== 'folder' && spec.kind !== 'template') return;
  const folders = new Set(outputs.map((output) => dirname(output)));
  await Promise.all([...folders].map((folder) => mkdir(folder, { recursive: true })));
}
