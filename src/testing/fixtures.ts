/**
 * The package's own sample files, for host apps' tests: one real file per registered format
 * (`fixtures/fixture.<format>`, shipped in the package) plus a few hostile ones. Paths are
 * absolute, so a test can hand them straight to a converter or an engine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileconvError } from '../core/errors.js';
import { getFormat } from '../core/formats/index.js';
import { FORMATS } from '../core/formats/registry.js';
import type { FormatName } from '../core/formats/types.js';

/**
 * The package root, found by walking up from this module rather than by a fixed `../..`: the
 * module runs from src/testing/ in development, from dist/src/testing/ once built, and the
 * bundler may move shared code into a chunk at dist/'s top level.
 */
function findPackageRoot(start: string): string | undefined {
  let dir = start;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && existsSync(join(dir, 'fixtures'))) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
      if (name === 'fileconv') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Absolute path of the package's fixtures/ directory. Falls back to the development layout when
 * no package root is found, so importing this module never throws; fixturePath() then says what
 * is missing.
 */
export const FIXTURES_DIR: string = join(findPackageRoot(here) ?? join(here, '..', '..'), 'fixtures');

/** Path of every registered format's fixture, by canonical format name ('jpg', 'xlsx', ...). */
export const fixtures: Readonly<Record<FormatName, string>> = Object.freeze(
  Object.fromEntries(FORMATS.map((format) => [format.name, join(FIXTURES_DIR, `fixture.${format.name}`)])),
);

/** Encrypted documents: a converter must refuse them with PASSWORD_PROTECTED. */
export const encryptedFixtures: Readonly<Record<'docx' | 'pdf' | 'xlsx', string>> = Object.freeze({
  docx: join(FIXTURES_DIR, 'bad', 'encrypted.docx'),
  pdf: join(FIXTURES_DIR, 'bad', 'encrypted.pdf'),
  xlsx: join(FIXTURES_DIR, 'bad', 'encrypted.xlsx'),
});

/**
 * The fixture of a format, by name or alias ('jpeg' gives fixture.jpg). Throws
 * UNSUPPORTED_FORMAT for a name fileconv does not know, and NOT_FOUND when the file is missing
 * (a package installed without its fixtures/ directory).
 */
export function fixturePath(format: string): string {
  const definition = getFormat(format);
  if (!definition)
    throw new FileconvError('UNSUPPORTED_FORMAT', `No fixture: '${format}' is not a known format.`);
  const path = fixtures[definition.name]!;
  if (!existsSync(path)) {
    throw new FileconvError('NOT_FOUND', `The fixture of '${definition.name}' is missing: ${path}`);
  }
  return path;
}
