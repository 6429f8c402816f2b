/**
 * The HTTP metrics of one answered request, from the event the HTTP service hands to its
 * `onRequest` hook. Label values stay few whatever clients send: the route is the matched
 * pattern ('/api/jobs/:jobId', never the id), and an unusual method is 'other'.
 */
import { isRefusal } from '../../service/http-errors.js';
import type { RequestEvent } from '../../service/service.js';
import type { Instruments } from './instruments.js';

/** The route label of a request no route matched (a 405 on a known path with another method). */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function recordRequest(instruments: Instruments, event: RequestEvent): void {
  const route = event.route ?? UNMATCHED_ROUTE;
  const method = METHODS.has(event.method) ? event.method : 'other';
  instruments.httpRequests.inc({ route, method, status: String(event.status), code: event.code ?? '' });
  instruments.httpRequestDuration.observe({ route, method }, event.durationMs / 1000);
  // A 499 (the client left) has no code: nobody refused it. A 503 OVERLOADED (the queue bound) was.
  if (event.code && isRefusal(event.status, event.code)) instruments.httpRejected.inc({ code: event.code });
  if (event.uploadedBytes > 0) instruments.uploadBytes.inc({ route }, event.uploadedBytes);
}
