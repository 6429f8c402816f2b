/**
 * The wire contract of the HTTP API, in one module: the answers' zod schemas and their inferred
 * types (answers.ts); the request bodies' schemas, the same that validate requests, and the types
 * a client sends, inferred from them (requests.ts).
 *
 * fileconv/client imports this module type-only (test/client/imports.test.ts), so its types are
 * the server's and its bundle holds neither zod nor server code. The web page imports answers.ts
 * alone: the request schemas' refinements reach server code (webhook and address checks) that
 * its browser tsconfig cannot type-check.
 */
export * from './answers.js';
export * from './requests.js';
