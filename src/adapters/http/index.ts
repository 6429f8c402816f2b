/**
 * `fileconv/http`: the framework-neutral HTTP service and its web-standard fetch handler (Hono,
 * Next.js route handlers, Bun, Deno). The Node adapters live beside it: `fileconv/http/node`
 * (a plain node:http listener, the fastest), `fileconv/http/express`, `fileconv/http/fastify`.
 */

export type { CorsOptions } from '../../service/cors.js';
export type { AnswerBody, HttpAnswer, HttpExchange } from '../../service/exchange.js';
export { settleJob, settleJobCharges } from '../../service/metering.js';
export {
  type Authenticator,
  type AuthRequest,
  type HttpService,
  type HttpServiceOptions,
  type RequestEvent,
  UPLOAD_URL_EXPIRES_IN,
} from '../../service/service.js';
export type { ServiceEngine } from '../../service/service-engine.js';
export {
  createFetchHandler,
  type FetchConnectionInfo,
  type FetchHandler,
  type FetchHandlerOptions,
  fetchHandlerFor,
} from './fetch.js';
export { createHttpService } from './service.js';
