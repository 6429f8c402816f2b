import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { defineConfig } from 'tsup';
import { packageEntries } from './scripts/package-entries.js';

/**
 * Build entries are derived from package.json "exports" (its patterns expanded by
 * scripts/package-entries.ts) so the two can never disagree (test/package.test.ts checks that
 * every export has a source file).
 */
function entriesFromExports(): string[] {
  // Plus files loaded by path at run time rather than imported: the worker threads of the HEIC
  // decoder, of ffmpeg.wasm and of isolated conversions (sharp/heic.ts, ffmpeg/wasm-thread.ts and
  // kit/isolation/isolated.ts look for them by path), and the modules the isolation child imports
  // to make its converter that are no export of their own (each isolated converter's registration
  // names its module; the converters' own are their exports).
  const entries: string[] = [
    'bin/cli.ts',
    'src/converters/sharp/heic-worker.ts',
    'src/converters/ffmpeg/wasm-worker.ts',
    'src/kit/isolation/converter-process.ts',
    'src/operations/pdf/operations-stand-in.ts',
  ];
  for (const { source } of packageEntries(import.meta.dirname)) entries.push(source);
  return entries;
}

/**
 * zod re-exports all of its ~50 message locales (`z.locales`), half of its bundled size; fileconv
 * only ever uses English messages (the default, which zod registers from `locales/en.js` itself).
 * Parsing the rest cost every process start ~10 ms.
 */
const englishOnlyZod: Plugin = {
  name: 'english-only-zod',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: join(process.cwd(), 'node_modules/zod/v4/locales'),
    }));
  },
};

export default defineConfig({
  entry: entriesFromExports(),
  // ESM, and CommonJS for `require('fileconv')` (each with its own .d.ts / .d.cts, so TypeScript
  // resolves both under node16, nodenext and bundler). No source maps: they doubled the package.
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: false,
  // import.meta.url in the CommonJS build (the worker and child-process scripts are found by path).
  shims: true,
  clean: true,
  splitting: true,
  outDir: 'dist',
  // Keep dependencies external: heavy engines are loaded lazily at run time. Except the small
  // pure-JS ones every command and `import 'fileconv'` loads: as hundreds of separate ESM files
  // they cost ~50 ms of module resolution per process start (measured: zod + file-type +
  // commander 87 ms unbundled, 39 ms bundled), a third of `fileconv convert` on a small image.
  skipNodeModulesBundle: true,
  noExternal: [
    'zod',
    'file-type',
    'commander',
    'strtok3',
    'token-types',
    '@tokenizer/inflate',
    'uint8array-extras',
    '@borewit/text-codec',
    'ieee754',
    'debug',
    'ms',
    '@tokenizer/token',
  ],
  esbuildPlugins: [englishOnlyZod],
  // Bundled CommonJS (commander, and debug under file-type) calls require() for Node built-ins:
  // the ESM build gets a require of its own (the CommonJS build has Node's).
  banner: ({ format }) =>
    format === 'esm'
      ? {
          js: "import { createRequire as __fileconvCreateRequire } from 'node:module'; const require = __fileconvCreateRequire(import.meta.url);",
        }
      : {},
  // Files that are not entries: the Python bridge that drives warm LibreOffice workers
  // (libreoffice/libreoffice-locate.ts finds it beside the built adapters), and the web page's assets.
  async onSuccess() {
    await mkdir('dist/src/converters/libreoffice', { recursive: true });
    await copyFile(
      'src/converters/libreoffice/uno-bridge.py',
      'dist/src/converters/libreoffice/uno-bridge.py',
    );
    // The web converter page's files (src/service/web-routes.ts finds them here). Its script is
    // built from src/service/web/src/ (scripts/build-web.mjs, not committed) by `npm run build`
    // before tsup, so it is older than dist/ (helpers/built-package.ts); a bare `tsup` builds it here.
    if (!existsSync('src/service/web/app.js')) {
      execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
    }
    await mkdir('dist/src/service/web', { recursive: true });
    for (const asset of ['page.html', 'app.js', 'style.css']) {
      await copyFile(`src/service/web/${asset}`, `dist/src/service/web/${asset}`);
    }
  },
});
