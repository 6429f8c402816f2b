/**
 * The optional peer dependencies and how they are named: each group installs with one line, a
 * missing package is told apart from a broken one, and the declared peers match package.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unavailable } from '../src/kit/converter-kit.js';
import { ENGINE_PACKAGES, installLine, isInstalled, packageUnavailable } from '../src/kit/engine-packages.js';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

describe('engine packages', () => {
  it('are optional peer dependencies, never installed with fileconv itself', () => {
    for (const packages of Object.values(ENGINE_PACKAGES)) {
      for (const name of packages) {
        expect(pkg.peerDependencies[name], name).toBeDefined();
        expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
        expect(pkg.dependencies[name], name).toBeUndefined();
      }
    }
  });

  it('install as a group with one line', () => {
    expect(installLine('pdf')).toBe('npm install pdfjs-dist pdf-lib');
    expect(installLine('redis')).toBe('npm install ioredis bullmq');
  });

  it('are found on disk without being loaded', () => {
    expect(isInstalled('sharp')).toBe(true);
    expect(isInstalled('@pdf-lib/fontkit')).toBe(true);
    expect(isInstalled('no-such-package-fileconv')).toBe(false);
  });

  it('say whether a package is missing or broken, with the group install line', () => {
    const missing = packageUnavailable(
      'exceljs',
      'csv-parse',
      'CSV input',
      Object.assign(new Error('nope'), { code: 'ERR_MODULE_NOT_FOUND' }),
    );
    expect(missing).toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message:
        "The exceljs engine needs the npm package 'csv-parse' for CSV input, which is not installed: run `npm install exceljs csv-parse`",
      details: { package: 'csv-parse', install: 'npm install exceljs csv-parse' },
    });
    expect(packageUnavailable('pdf', 'pdfjs-dist', 'reading PDF', new SyntaxError('bad')).message).toMatch(
      /which failed to load: run `npm install pdfjs-dist pdf-lib`/,
    );
  });

  it("become a one-line reason: never Node's Require stack of this machine's paths", () => {
    const missing = Object.assign(
      new Error(
        "Cannot find module '@ffmpeg/core'\nRequire stack:\n- /srv/app/node_modules/fileconv/dist/index.js",
      ),
      { code: 'MODULE_NOT_FOUND' },
    );
    expect(unavailable(missing, 'npm install @ffmpeg/core')).toEqual({
      ok: false,
      reason: "Cannot find module '@ffmpeg/core'",
      install: 'npm install @ffmpeg/core',
    });
  });
});
