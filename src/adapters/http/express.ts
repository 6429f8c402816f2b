/**
 * `fileconv/http/express`: the HTTP service as an Express 5 Router, mountable under any prefix
 * in an existing app (`app.use('/files', createHttpRouter(engine, options))`). A thin shim over
 * the framework-neutral service (./service.ts): requests that match no route of the service go
 * on to the app's next handler.
 */
import { type Request, Router } from 'express';
import type { HttpServiceOptions } from '../../service/service.js';
import type { ServiceEngine } from '../../service/service-engine.js';
import { nodeExchange, serveNode } from './node.js';
import { mountService } from './service.js';

export { UPLOAD_URL_EXPIRES_IN } from '../../service/route-context.js';
export type { AuthRequest, RequestEvent } from '../../service/service.js';

export interface HttpRouterOptions extends Omit<HttpServiceOptions, 'authenticate'> {
  /** A host's own sign-in, tried before API keys: the Express request -> { accountId, plan } or null. */
  authenticate?: (
    req: Request,
  ) => Promise<{ accountId: string; plan: string } | null> | { accountId: string; plan: string } | null;
}

export function createHttpRouter(engine: ServiceEngine, options?: HttpRouterOptions): Router {
  const service = mountService('createHttpRouter', engine, options, ({ authenticate, ...rest }) => ({
    ...rest,
    ...(authenticate ? { authenticate: (request) => authenticate(request.raw as Request) } : {}),
  }));
  const router = Router();
  router.use((req, res, next) => {
    // Express puts the mount path in req.baseUrl; req.url would say '/' for the mount point
    // itself whether or not it had its slash, so the path is taken from originalUrl.
    const url = req.originalUrl;
    const at = url.indexOf('?');
    const exchange = nodeExchange(req, res, {
      path: (at === -1 ? url : url.slice(0, at)).slice(req.baseUrl.length),
      mountPath: req.baseUrl,
      search: at === -1 ? '' : url.slice(at + 1),
      protocol: req.protocol,
      raw: req,
    });
    void serveNode(service, exchange, res, next);
  });
  return router;
}
