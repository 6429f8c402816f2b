/**
 * `fileconv/metrics`: Prometheus metrics (prom-client) for an engine and the HTTP service. The
 * implementation is prometheus.ts; this entry only gives it the subpath's name, the way every
 * adapter subpath is named after its file or folder (test/package.test.ts).
 */
export * from './prometheus.js';
