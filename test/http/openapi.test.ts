/**
 * The OpenAPI description (adapters/http/openapi.ts): a valid OpenAPI 3.1 document, describing
 * exactly the /api routes the router serves (read from the service's own route table, so a route
 * added without a row in the operations table fails here), served as JSON and as a page.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createHttpService } from '../../src/adapters/http/service.js';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { createEngine } from '../../src/index.js';
import { renderDocsPage } from '../../src/service/docs-page.js';
import { buildOpenApiDocument } from '../../src/service/openapi.js';
import type { HttpService } from '../../src/service/service.js';
import { call, PREFIX, SECRET, startServer } from './harness.js';

/** `METHOD path` of every route of the service, `:param` written as OpenAPI `{param}`. */
function servedRoutes(service: HttpService): string[] {
  return service.routes.map(({ method, path }) => `${method} ${path.replace(/:(\w+)/g, '{$1}')}`).sort();
}

function documentedRoutes(): string[] {
  const doc = buildOpenApiDocument();
  return Object.entries(doc.paths)
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

/** A service with every optional route switched on; it is only inspected, never served. */
function fullService(): HttpService {
  const engine = createEngine({
    storage: createMemoryStorage(),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    converters: [],
  });
  return createHttpService(engine, { signingSecret: SECRET, webConverter: true });
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = buildOpenApiDocument({ serverUrl: 'https://api.example.com/v1' });
    const result = await new Validator().validate(structuredClone({ ...doc }));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('describes exactly the /api routes the router serves', () => {
    const served = servedRoutes(fullService());
    // Only /api/* is the API. Anything else on the router (the web converter page at GET / and its
    // static assets under /web/) is a browser UI, not an interface for clients to program against,
    // so it is left out of the description; every /api route must be described and vice versa.
    const api = served.filter((route) => route.split(' ')[1]!.startsWith('/api/'));
    expect(api.length).toBeGreaterThan(10);
    expect(documentedRoutes()).toEqual(api);
  });

  it('describes request bodies with the request schemas, responses and errors for each operation', () => {
    const doc = buildOpenApiDocument();
    const create = doc.paths['/api/jobs/create']!.post!;
    expect(create.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/JobRequest' } } },
    });
    // The schema is the validating zod schema's JSON Schema (what flows in when a field is added).
    expect(doc.components.schemas.CreateJobRequest).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['fileKey', 'sourceFormat', 'targetFormat', 'fileSize']),
    });
    // A job is the specification's conversion, a document operation over files in order, or a web page capture.
    expect(doc.components.schemas.JobRequest).toMatchObject({
      anyOf: [
        { required: expect.arrayContaining(['fileKey', 'sourceFormat', 'targetFormat', 'fileSize']) },
        { required: expect.arrayContaining(['operation', 'fileKeys']) },
        { required: expect.arrayContaining(['url', 'targetFormat']) },
      ],
    });
    expect(Object.keys(create.responses as object)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '409', '413', '415', '422', '429', '500']),
    );
    const upload = doc.paths['/api/upload']!.post!;
    expect(Object.keys((upload.requestBody as { content: object }).content)).toEqual(['multipart/form-data']);
    const put = doc.paths['/api/files/{fileId}/content']!.put!;
    expect((put.parameters as { name: string }[]).map((p) => p.name)).toEqual([
      'fileId',
      'expires',
      'signature',
    ]);
    const tooMany = (create.responses as Record<string, { headers: object }>)['429']!;
    expect(Object.keys(tooMany.headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit']),
    );
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('GET /api/openapi.json and GET /api/docs', () => {
  it('serve the document, with the public base URL as server, without an API key', async () => {
    const server = await startServer({ start: false });
    const response = await call(server, 'GET', '/api/openapi.json');
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.servers).toEqual([{ url: server.url }]);
    expect(server.url.endsWith(PREFIX)).toBe(true);
    expect(Object.keys(response.body.paths).sort()).toEqual(Object.keys(buildOpenApiDocument().paths).sort());
  });

  it('are public but rate-limited like any read: the per-IP "default" policy', async () => {
    const server = await startServer({ start: false, router: { counters: createMemoryCounterStore() } });
    for (const path of ['/api/openapi.json', '/api/docs']) {
      const response = await call(server, 'GET', path);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe('"default";q=60;w=60');
    }
  });

  it('uses the configured publicUrl as server', async () => {
    const server = await startServer({
      start: false,
      router: { publicUrl: 'https://files.example.com/v1/' },
    });
    const response = await call(server, 'GET', '/api/openapi.json');
    expect(response.body.servers).toEqual([{ url: 'https://files.example.com/v1' }]);
  });

  it('render a self-contained page naming every operation', async () => {
    const server = await startServer({ start: false });
    const response = await call(server, 'GET', '/api/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = response.text;
    for (const [path, methods] of Object.entries(buildOpenApiDocument().paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(html, `${method} ${path}`).toContain(`>${method.toUpperCase()}</span>${path}</h3>`);
        expect(html).toContain(`id="op-${operation.operationId as string}"`);
      }
    }
    expect(html).toContain('id="schema-CreateJobRequest"');
    // Nothing to fetch: no script, no external stylesheet or font.
    expect(html).not.toMatch(/<script|<link|https?:\/\/(?!127\.0\.0\.1)/);
  });

  it('escapes every value it shows', () => {
    const doc = buildOpenApiDocument({ serverUrl: 'https://x.example/"><script>alert(1)</script>' });
    doc.info.description = '<img src=x onerror=alert(1)> & "quotes"';
    const html = renderDocsPage(doc);
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62; &#38; &#34;quotes&#34;');
    // Schema patterns (regexes full of quotes and brackets) reach the page escaped too.
    expect(html).toContain('[^\\&#34;');
    expect(html).not.toContain('[^\\"');
  });
});
