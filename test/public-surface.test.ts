/**
 * What `fileconv` offers at run time is a committed list: a new name in the root entry is a
 * deliberate change made here too, and the root stays a page a reader can take in (at most 50
 * names; the rest of the API lives behind subpaths). Every subpath of package.json loads, and
 * every converter the assembly uses is reachable from a `fileconv/converters/*` entry, with its
 * registration and its factory.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageEntries } from '../scripts/package-entries.js';
import { defaultConverters } from '../src/preset/converters.js';

const ROOT_NAMES = [
  // The engines (createEngine: deprecated, removed in 0.3.0).
  'createConverter',
  'createEngine',
  'createJobEngine',
  // Errors.
  'ERROR_CODES',
  'FileconvError',
  'isFileconvError',
  'toFileconvError',
  // Formats (the rest of the registry: fileconv/formats).
  'FORMATS',
  'FORMAT_FAMILIES',
  'createFormatRegistry',
  'detectFormat',
  'extensionOf',
  'formatFromExtension',
  'formatFromMime',
  'formatsByFamily',
  'getFormat',
  'mimeTypeOf',
  'requireFormat',
  // Conversion paths.
  'ConversionGraph',
  // Jobs.
  'FILE_STATUSES',
  'JOB_LIFECYCLE_EVENT_TYPES',
  'JOB_STATUSES',
  'TERMINAL_STATUSES',
  'WEBHOOK_STATUSES',
  'canTransition',
  'isTerminal',
  'transition',
  // File names.
  'outputNameFor',
  'sanitizeFileName',
  // Plans and API keys (limits, quotas and key checks: fileconv/policy).
  'DEFAULT_PLANS',
  'FREE_PLAN',
  'createApiKey',
  'definePlans',
  'getPlan',
  'revokeApiKey',
  // Signed URLs and webhooks.
  'MIN_SECRET_BYTES',
  'WEBHOOK_SIGNATURE_HEADER',
  'sign',
  'signWebhook',
  'signingKey',
  'verify',
  'verifyWebhookSignature',
];

// Every subpath, the './converters/*' pattern expanded to each converter folder.
const subpaths = packageEntries(join(import.meta.dirname, '..')).map(
  ({ subpath }) => `fileconv${subpath.slice(1)}`,
);

describe('the root entry', () => {
  it('exports exactly the committed runtime names, at most 50', async () => {
    const root = await import('../src/index.js');
    expect(Object.keys(root).sort()).toEqual([...ROOT_NAMES].sort());
    expect(ROOT_NAMES.length).toBeLessThanOrEqual(50);
  });
});

describe('the package subpaths', () => {
  // By name, as a user imports them (vitest.config.ts maps each to its source file).
  it.each(subpaths)('%s imports without error', async (subpath) => {
    const entry = (await import(/* @vite-ignore */ subpath)) as Record<string, unknown>;
    expect(Object.keys(entry).length, subpath).toBeGreaterThan(0);
  });

  it('reach every converter of the assembly: its registration and a factory beside it', async () => {
    const entries = await Promise.all(
      subpaths
        .filter((subpath) => subpath.startsWith('fileconv/converters/'))
        .map(async (subpath) => ({
          subpath,
          exports: (await import(/* @vite-ignore */ subpath)) as Record<string, unknown>,
        })),
    );
    for (const registration of defaultConverters()) {
      const home = entries.find(({ exports }) =>
        Object.entries(exports).some(
          ([name, value]) =>
            name.endsWith('_REGISTRATION') &&
            (value as { name?: unknown } | null)?.name === registration.name,
        ),
      );
      expect(
        home?.subpath,
        `no fileconv/converters/* entry exports ${registration.name}'s registration`,
      ).toBeDefined();
      const factories = Object.keys(home!.exports).filter((name) => /^create\w*Converter$/.test(name));
      expect(factories.length, `${home!.subpath} exports no create*Converter`).toBeGreaterThan(0);
    }
  });
});
