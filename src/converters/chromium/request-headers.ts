/**
 * Which request headers a captured page's requests never carry from the browser or the job:
 * the connection's own (Node's client writes them for the pinned connection) and conditionals
 * (a 304 would leave the browser with no body). Dependency-free: the options schema refuses a
 * job's `extraHttpHeaders` naming one of them, and the fetcher drops them from the browser's.
 */
export const DROPPED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'transfer-encoding',
  'upgrade',
  'te',
  'content-length',
  'accept-encoding',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
  'if-range',
]);
