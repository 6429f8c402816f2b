/**
 * The Dockerfile installs every Debian package the engines need, as `fileconv doctor` and the
 * engines' "not installed" errors name them (their install lines are the one list; the
 * Dockerfile's must not drift from it), and the slim variant leaves out only the heavy two.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CHROMIUM_INSTALL } from '../src/converters/chromium/chromium-locate.js';
import { LIBREOFFICE_INSTALL } from '../src/converters/libreoffice/libreoffice-locate.js';
import { COMMAND_TOOLS } from '../src/kit/command-tools.js';
import { isApiGetRoute, METRICS_PATH, SERVE_PORT } from './helpers/deploy-files.js';

const DOCKERFILE = readFileSync(join(import.meta.dirname, '..', 'Dockerfile'), 'utf8');

/** The packages an install line names: `apt-get install [--flags] a b c` up to '(' ',' or ';'. */
function debianPackages(line: string): string[] {
  const names = /apt-get install((?: --[\w-]+)*)((?: [a-z0-9][a-z0-9.+-]*)+)/.exec(line)?.[2];
  return names?.trim().split(' ') ?? [];
}

/** The shell variables of the RUN that installs the engines: engines, fonts, heavy. */
function dockerfileLists(): Record<string, string[]> {
  const lists: Record<string, string[]> = {};
  // The first assignment of each (the slim variant empties `heavy` later).
  for (const [, name, value] of DOCKERFILE.matchAll(/(\w+)="([^"$]*)"/g))
    lists[name!] ??= value!.replace(/\\\n/g, ' ').split(/\s+/).filter(Boolean);
  return lists;
}

it('installs every Debian package the engines name', () => {
  const named = new Set(
    [
      ...Object.values(COMMAND_TOOLS).map((tool) => tool.install),
      CHROMIUM_INSTALL,
      LIBREOFFICE_INSTALL,
    ].flatMap(debianPackages),
  );
  expect(named.size).toBeGreaterThan(15);
  const { engines = [], fonts = [], heavy = [] } = dockerfileLists();
  const installed = new Set([...engines, ...fonts, ...heavy]);
  expect([...named].filter((pkg) => !installed.has(pkg))).toEqual([]);
  expect(heavy.sort()).toEqual(['calibre', 'chromium']);
});

it("the image's HEALTHCHECK asks paths the API and the metrics endpoint serve, on the default port", () => {
  const check = readFileSync(join(import.meta.dirname, '..', 'scripts', 'image', 'healthcheck.mjs'), 'utf8');
  const paths = [...new Set([...check.matchAll(/\/(?:api\/[a-z]+|metrics)\b/g)].map(([path]) => path))];
  expect(paths).toEqual(['/api/ready', METRICS_PATH]);
  expect(isApiGetRoute('/api/ready')).toBe(true);
  expect(check).toContain(`?? '${SERVE_PORT}'`);
  expect(DOCKERFILE).toMatch(new RegExp(`^EXPOSE ${SERVE_PORT}$`, 'm'));
  expect(DOCKERFILE).toContain('CMD ["node", "/opt/fileconv/healthcheck.mjs"]');
});
