/**
 * `fileconv/http/fastify`: the HTTP service as a Fastify plugin, mounted under the prefix it is
 * registered with:
 *
 *   app.register(createFastifyPlugin(engine, { signingSecret }), { prefix: '/files' });
 *
 * Inside its own encapsulated scope the plugin removes Fastify's body parsers (uploads stream
 * straight from the socket into storage, and JSON bodies are read by the service with its own
 * limits), so the host's parsers and routes elsewhere are untouched. Requests are handed to the
 * same framework-neutral service as every other adapter (the Node fast path: no copies).
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { FileconvError } from '../../core/errors.js';
import { errorAnswer } from '../../service/http-errors.js';
import type { HttpService, HttpServiceOptions } from '../../service/service.js';
import type { ServiceEngine } from '../../service/service-engine.js';
import { normalizeBasePath, pathBelow } from './mount.js';
import { nodeExchange, serveNode } from './node.js';
import { mountService } from './service.js';

export type { AuthRequest, HttpServiceOptions, RequestEvent } from '../../service/service.js';

export function createFastifyPlugin(engine: ServiceEngine, options?: HttpServiceOptions): FastifyPluginAsync {
  return fastifyPluginFor(mountService('createFastifyPlugin', engine, options));
}

/** The Fastify plugin of an existing service. */
export function fastifyPluginFor(service: HttpService): FastifyPluginAsync {
  return async (fastify) => {
    fastify.removeAllContentTypeParsers();
    // Any body, of any type, is left unread for the service.
    fastify.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const mountPath = normalizeBasePath(fastify.prefix);
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const url = request.raw.url ?? '/';
      const at = url.indexOf('?');
      const path = pathBelow(at === -1 ? url : url.slice(0, at), mountPath) ?? '/';
      // The service writes the answer itself (streaming, draining refused bodies).
      reply.hijack();
      const exchange = nodeExchange(request.raw, reply.raw, {
        path,
        mountPath,
        search: at === -1 ? '' : url.slice(at + 1),
        protocol: request.protocol,
        raw: request,
      });
      await serveNode(service, exchange, reply.raw);
    };
    fastify.all('/', handler);
    fastify.all('/*', handler);
  };
}

/**
 * Fastify answers a few malformed requests before any route runs (a path that is not valid
 * percent-encoding: FST_ERR_BAD_URL). Pass this as the server's `frameworkErrors` so those get
 * fileconv's error body too: `Fastify({ frameworkErrors: fileconvFrameworkErrors })`.
 */
export function fileconvFrameworkErrors(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'The request path is not valid percent-encoding.'
      : 'The request is malformed.';
  const answer = errorAnswer(new FileconvError('INVALID_REQUEST', message));
  reply.code(answer.status).headers(answer.headers).send(answer.body);
}
