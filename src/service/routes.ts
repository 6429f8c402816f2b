/**
 * The route table of the HTTP service and its matcher. Matching follows what the Express router
 * did before the layer became framework-neutral, so no client sees a difference: static segments
 * are case-insensitive, one trailing slash is allowed, a `:name` segment matches one
 * percent-decoded path segment, and HEAD is answered by the GET route unless the path has a
 * HEAD route of its own (tus asks an upload's offset with HEAD).
 */
import { FileconvError } from '../core/errors.js';
import type { Call } from './access.js';
import type { HttpAnswer } from './exchange.js';

export type RouteMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface Route {
  method: RouteMethod;
  /** '/api/jobs/:jobId': static segments and `:name` parameters. */
  path: string;
  /** Served before access control: no key needed, no rate limit spent (the web page's files, health, readiness). */
  public?: boolean;
  /**
   * The route creates something: a request with an Idempotency-Key header runs once per key, and
   * its retries get the first answer again (idempotency.ts).
   */
  idempotent?: true;
  /**
   * The URL's signature is the credential (the local upload PUT and result GET): an anonymous
   * request's rate limit is charged by the route through chargeSignedRequest once it knows
   * whose file or job the URL names, not by admit().
   */
  signed?: boolean;
  /** Headers every answer of the route carries, refusals before it runs (rate limit, key) included. */
  headers?: Readonly<Record<string, string>>;
  handle(call: Call, params: Record<string, string>): Promise<HttpAnswer>;
}

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return escapeRegExp(segment);
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  // '/' itself must also match the mount point without its slash (path '').
  const pattern = route.path === '/' ? /^\/?$/ : new RegExp(`^${source}/?$`, 'i');
  return { route, pattern, names };
}

function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch (cause) {
    throw new FileconvError('INVALID_REQUEST', 'The request path is not valid percent-encoding.', { cause });
  }
}

export interface RouteTable {
  /** The route for a method and path, or null; `allowed` lists the methods the path has. */
  match(method: string, path: string): { found: RouteMatch | null; allowed: RouteMethod[] };
}

function found({ route, names }: CompiledRoute, groups: RegExpExecArray): RouteMatch {
  const params: Record<string, string> = {};
  names.forEach((name, index) => {
    params[name] = decodeParam(groups[index + 1]!);
  });
  return { route, params };
}

export function routeTable(routes: readonly Route[]): RouteTable {
  const compiled = routes.map(compile);
  return {
    match(method, path) {
      const allowed: RouteMethod[] = [];
      let getRoute: { compiled: CompiledRoute; groups: RegExpExecArray } | undefined;
      for (const entry of compiled) {
        const groups = entry.pattern.exec(path);
        if (!groups) continue;
        if (entry.route.method === method) return { found: found(entry, groups), allowed };
        if (method === 'HEAD' && entry.route.method === 'GET') getRoute ??= { compiled: entry, groups };
        allowed.push(entry.route.method);
      }
      if (getRoute) return { found: found(getRoute.compiled, getRoute.groups), allowed };
      return { found: null, allowed };
    },
  };
}
