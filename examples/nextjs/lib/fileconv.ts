/**
 * The app's one fileconv: created on the first request (not at build time), kept on globalThis
 * so that dev-mode reloads of this module reuse it (a data dir serves one process at a time).
 */
import type { JobEngine } from 'fileconv';
import { createFetchHandler, type FetchHandler } from 'fileconv/http';
import { createFileconv, type FileconvHttpOptions } from 'fileconv/preset';

/** Where fileconv is mounted: the folder of app/files/[[...path]]/route.ts. */
const BASE_PATH = '/files';

interface Slot {
  fileconv?: Promise<{ engine: JobEngine; http: FileconvHttpOptions }>;
  handler?: Promise<FetchHandler>;
}

// A test may fill this slot with its own engine and options before a request comes in
// (test/examples-nextjs.test.ts runs fileconv's HTTP conformance suite through this app that way).
const SLOT = Symbol.for('fileconv.example.nextjs');

export function fileconvHandler(): Promise<FetchHandler> {
  const global = globalThis as { [SLOT]?: Slot };
  global[SLOT] ??= {};
  const slot = global[SLOT];
  slot.fileconv ??= startFileconv();
  slot.handler ??= slot.fileconv.then(({ engine, http }) =>
    createFetchHandler(engine, { ...http, basePath: BASE_PATH }),
  );
  return slot.handler;
}

async function startFileconv() {
  const fileconv = await createFileconv();
  // `npm start` sets NEXT_MANUAL_SIG_HANDLE, so Next leaves SIGTERM to us: running
  // conversions get their grace period and the data dir is released, then the process exits.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void fileconv.close().finally(() => process.exit(0)));
  }
  return { engine: fileconv.jobs, http: fileconv.http };
}
