import { copyFile, mkdir } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import pkg from './package.json' with { type: 'json' };

/**
 * Build entries are derived from package.json "exports" so the two can never disagree
 * (test/package.test.ts checks that every export has a source file).
 */
function entriesFromExports(): string[] {
  // Plus files loaded by path at run time rather than imported: the worker threads of the HEIC
  // decoder and of ffmpeg.wasm (image/heic.ts and media/wasm-runner.ts look for them by path).
  const entries: string[] = [
    'bin/cli.ts',
    'adapters/converters/image/heic-worker.ts',
    'adapters/converters/media/wasm-worker.ts',
  ];
  for (const target of Object.values(pkg.exports)) {
    if (typeof target === 'string') continue;
    entries.push(target.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
  }
  return entries;
}

export default defineConfig({
  entry: entriesFromExports(),
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  outDir: 'dist',
  // Keep every dependency external: heavy engines are loaded lazily at run time.
  skipNodeModulesBundle: true,
  // Files that are not entries: the Python bridge that drives warm LibreOffice workers
  // (office/libreoffice-locate.ts finds it beside the built adapters), and the web page's assets.
  async onSuccess() {
    await mkdir('dist/adapters/converters/office', { recursive: true });
    await copyFile(
      'adapters/converters/office/uno-bridge.py',
      'dist/adapters/converters/office/uno-bridge.py',
    );
    // The web converter page's static files (adapters/http/web-routes.ts finds them here).
    await mkdir('dist/adapters/http/web', { recursive: true });
    for (const asset of ['page.html', 'app.js', 'style.css']) {
      await copyFile(`adapters/http/web/${asset}`, `dist/adapters/http/web/${asset}`);
    }
  },
});
