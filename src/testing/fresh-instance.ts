/**
 * How the conformance suites get a fresh adapter for every test: the host's factory may return
 * the adapter itself or `{ adapter, cleanup }`, synchronously or not. After each test the
 * adapter's own `close()` runs (when it has one), then the cleanup.
 */
import { afterEach, beforeEach } from 'vitest';

export interface AdapterInstance<T> {
  adapter: T;
  /** Runs after the test and after the adapter's `close()`: drop tables, remove temp dirs, ... */
  cleanup?: () => unknown;
}

/** Makes one fresh adapter per test. */
export type AdapterFactory<T> = () => T | AdapterInstance<T> | Promise<T | AdapterInstance<T>>;

function isInstance<T>(value: T | AdapterInstance<T>): value is AdapterInstance<T> {
  return typeof value === 'object' && value !== null && 'adapter' in value;
}

/**
 * Registers beforeEach/afterEach hooks in the current describe block and returns a getter for
 * the current test's adapter.
 */
export function useFreshInstance<T extends { close?: () => Promise<void> }>(
  factory: AdapterFactory<T>,
): () => T {
  let current: AdapterInstance<T> | undefined;
  beforeEach(async () => {
    const made = await factory();
    current = isInstance(made) ? made : { adapter: made };
  });
  afterEach(async () => {
    const instance = current;
    current = undefined;
    if (!instance) return;
    try {
      await instance.adapter.close?.();
    } finally {
      await instance.cleanup?.();
    }
  });
  return () => {
    if (!current) throw new Error('The adapter is only available inside a test.');
    return current.adapter;
  };
}

/** A promise with its resolve function outside: lets a test hold a handler open. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Polls `condition` until it holds, failing after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
