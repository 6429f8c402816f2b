/**
 * The bare baselines of the adapter benchmark (bench/http-adapters.ts): the same routes as
 * fileconv's, at the same URLs, written directly in each framework the way an app would, so
 * the client runs the very same requests against both.
 *
 * - GET /files/api/health answers the JSON body fileconv answered (given in the settings),
 *   serialised per request, with the same headers (content type, no-store, a fresh X-Request-Id).
 * - Flow B does the equivalent work without the engine: POST /files/api/upload parses the
 *   multipart body with busboy (as fileconv does) and pipes the file into a file; POST
 *   /files/api/convert reads the JSON body (the framework's own parser), checks the file id and
 *   name, reads the file back, prepends the fake converter's header line and writes the result;
 *   GET /files/api/download?id= streams the result with the same headers as fileconv's download.
 *   Ids live in a Map (fileconv: a memory job store); no validation schema, limits or signing.
 *
 * It also holds what both sides share (the framework list, the mount path, listening), so the
 * bare servers' processes load no fileconv code but the fake converter's header line.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { basename, extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createAdaptorServer } from '@hono/node-server';
import busboy from 'busboy';
import { create as contentDisposition } from 'content-disposition';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { fakeOutputHeader } from '../src/testing/fake-converter.js';

/** The frameworks compared: each serves fileconv and a bare baseline. */
export const FRAMEWORKS = ['node', 'express', 'fetch', 'hono', 'fastify'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** Where every server of the benchmark mounts its routes. */
export const BASE_PATH = '/files';

/** A server listening on 127.0.0.1 and an OS-chosen port. */
export interface Listening {
  port: number;
  stop(): Promise<void>;
}

/** Listens on 127.0.0.1:0; stop() drops keep-alive connections too. */
export async function listenLocal(server: Server): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('server has no port');
  return {
    port: address.port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What the benchmark reads of @hono/node-server's bindings: the peer address of the Node request. */
type NodeBindings = { incoming: { socket: { remoteAddress?: string | undefined } } };

/** A fetch callback on @hono/node-server, as a plain node:http server. */
export function fetchServer(fetch: (request: Request, env: NodeBindings) => Promise<Response>): Server {
  return createAdaptorServer({
    fetch: (request: Request, env: NodeBindings) => fetch(request, env),
  }) as Server;
}

export interface BareSettings {
  /** Where uploads and results are written. */
  dir: string;
  /** The body GET /api/health answers (fileconv's, as it answered it). */
  health: unknown;
}

const HEALTH = `${BASE_PATH}/api/health`;
const UPLOAD = `${BASE_PATH}/api/upload`;
const CONVERT = `${BASE_PATH}/api/convert`;
const DOWNLOAD = `${BASE_PATH}/api/download`;
const SAFE_ID = /^[\w-]{1,100}$/;

/** The headers of every JSON answer of fileconv's. */
function jsonHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    ...extra,
    'x-request-id': randomUUID(),
    'x-content-type-options': 'nosniff',
  };
}

const healthHeaders = () => jsonHeaders({ 'cache-control': 'no-store' });

/** The work of the three Flow B routes, on Node streams; each framework wires it its own way. */
function flowB(dir: string) {
  const uploads = new Map<string, string>();
  const results = new Map<string, string>();
  return {
    /** busboy -> a file; the upload's JSON answer. */
    upload(contentType: string | undefined, body: Readable) {
      return new Promise<{ fileId: string; fileName: string; size: number }>((resolve, reject) => {
        const parser = busboy({ headers: { 'content-type': contentType }, limits: { files: 1 } });
        let written: Promise<{ fileId: string; fileName: string; size: number }> | undefined;
        parser.on('file', (_field, stream, info) => {
          const fileId = randomUUID();
          const fileName = info.filename ?? 'file';
          const out = createWriteStream(join(dir, fileId));
          written = pipeline(stream, out).then(() => {
            uploads.set(fileId, fileName);
            return { fileId, fileName, size: out.bytesWritten };
          });
        });
        parser.on('error', reject);
        parser.on('close', () => (written ? written.then(resolve, reject) : reject(new Error('no file'))));
        body.on('error', reject);
        body.pipe(parser);
      });
    },
    /** Reads the upload back, prepends the header line, writes the result; the convert answer. */
    async convert(request: unknown) {
      const { fileId, fileName, targetFormat } = (request ?? {}) as Record<string, unknown>;
      if (
        typeof fileId !== 'string' ||
        typeof fileName !== 'string' ||
        !SAFE_ID.test(fileId) ||
        uploads.get(fileId) !== fileName
      )
        throw new Error('unknown file');
      if (targetFormat !== 'md') throw new Error('unsupported target');
      const input = await readFile(join(dir, fileId));
      const downloadId = randomUUID();
      await writeFile(
        join(dir, `${downloadId}.md`),
        Buffer.concat([Buffer.from(fakeOutputHeader('fake', 'txt', 'md')), input]),
      );
      const outputName = `${basename(fileName, extname(fileName))}.md`;
      results.set(downloadId, outputName);
      return { downloadId, outputName };
    },
    /** The result as a stream with fileconv's download headers. */
    async download(id: string | null | undefined) {
      const outputName = id ? results.get(id) : undefined;
      if (!id || !outputName) throw new Error('unknown download');
      const path = join(dir, `${id}.md`);
      const { size } = await stat(path);
      return {
        headers: {
          'content-type': 'text/markdown; charset=utf-8',
          'content-length': String(size),
          'content-disposition': contentDisposition(outputName),
          'cache-control': 'private, no-store',
          'x-request-id': randomUUID(),
          'x-content-type-options': 'nosniff',
        },
        stream: createReadStream(path),
      };
    },
  };
}

type FlowB = ReturnType<typeof flowB>;

// ---- node:http -----------------------------------------------------------------------------

function nodeListener(settings: BareSettings, flow: FlowB) {
  const fail = (res: ServerResponse, error: unknown) => {
    if (!res.headersSent) res.writeHead(400, jsonHeaders());
    res.end(JSON.stringify({ error: String(error) }));
  };
  const sendJson = (res: ServerResponse, value: unknown) =>
    res.writeHead(200, jsonHeaders()).end(JSON.stringify(value));
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = `${req.method} ${url.pathname}`;
    if (route === `GET ${HEALTH}`) {
      res.writeHead(200, healthHeaders()).end(JSON.stringify(settings.health));
    } else if (route === `POST ${UPLOAD}`) {
      flow.upload(req.headers['content-type'], req).then(
        (file) => sendJson(res, file),
        (error: unknown) => fail(res, error),
      );
    } else if (route === `POST ${CONVERT}`) {
      readJson(req)
        .then((body) => flow.convert(body))
        .then(
          (job) => sendJson(res, job),
          (error: unknown) => fail(res, error),
        );
    } else if (route === `GET ${DOWNLOAD}`) {
      flow
        .download(url.searchParams.get('id'))
        .then(({ headers, stream }) => {
          res.writeHead(200, headers);
          return pipeline(stream, res);
        })
        .catch((error: unknown) => fail(res, error));
    } else {
      res.writeHead(404).end();
    }
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

// ---- Express -------------------------------------------------------------------------------

function expressApp(settings: BareSettings, flow: FlowB): express.Express {
  const app = express();
  // fileconv's answers carry neither: an app that cares about overhead turns both off.
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get(HEALTH, (_req, res) => {
    res.set(healthHeaders()).json(settings.health);
  });
  app.post(UPLOAD, async (req, res) => {
    res.set(jsonHeaders()).json(await flow.upload(req.headers['content-type'], req));
  });
  app.post(CONVERT, express.json(), async (req, res) => {
    res.set(jsonHeaders()).json(await flow.convert(req.body));
  });
  app.get(DOWNLOAD, async (req, res) => {
    const { headers, stream } = await flow.download(
      typeof req.query.id === 'string' ? req.query.id : undefined,
    );
    res.set(headers);
    await pipeline(stream, res);
  });
  return app;
}

// ---- Fetch (web Request/Response) ------------------------------------------------------------

/** A web body as a Node stream, for busboy (what fileconv's fetch handler does too). */
function nodeBody(request: Request): Readable {
  return request.body ? Readable.fromWeb(request.body as WebReadableStream<Uint8Array>) : Readable.from([]);
}

function jsonResponse(value: unknown, headers: Record<string, string> = jsonHeaders()): Response {
  return new Response(JSON.stringify(value), { status: 200, headers });
}

async function downloadResponse(flow: FlowB, id: string | null | undefined): Promise<Response> {
  const { headers, stream } = await flow.download(id);
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status: 200, headers });
}

function fetchHandler(settings: BareSettings, flow: FlowB) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const route = `${request.method} ${url.pathname}`;
    try {
      if (route === `GET ${HEALTH}`) return jsonResponse(settings.health, healthHeaders());
      if (route === `POST ${UPLOAD}`)
        return jsonResponse(
          await flow.upload(request.headers.get('content-type') ?? undefined, nodeBody(request)),
        );
      if (route === `POST ${CONVERT}`) return jsonResponse(await flow.convert(await request.json()));
      if (route === `GET ${DOWNLOAD}`) return await downloadResponse(flow, url.searchParams.get('id'));
      return new Response(null, { status: 404 });
    } catch (error) {
      return new Response(JSON.stringify({ error: String(error) }), { status: 400, headers: jsonHeaders() });
    }
  };
}

function honoApp(settings: BareSettings, flow: FlowB): Hono {
  const app = new Hono();
  app.get(HEALTH, (c) => c.body(JSON.stringify(settings.health), 200, healthHeaders()));
  app.post(UPLOAD, async (c) =>
    c.body(
      JSON.stringify(await flow.upload(c.req.header('content-type'), nodeBody(c.req.raw))),
      200,
      jsonHeaders(),
    ),
  );
  app.post(CONVERT, async (c) =>
    c.body(JSON.stringify(await flow.convert(await c.req.json())), 200, jsonHeaders()),
  );
  app.get(DOWNLOAD, (c) => downloadResponse(flow, c.req.query('id')));
  return app;
}

// ---- Fastify -------------------------------------------------------------------------------

async function listenFastify(settings: BareSettings, flow: FlowB): Promise<Listening> {
  const app = Fastify({ forceCloseConnections: true });
  // Multipart bodies are left unread for busboy (the usual alternative, @fastify/multipart, is busboy too).
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
  app.get(HEALTH, (_request, reply) => reply.headers(healthHeaders()).send(JSON.stringify(settings.health)));
  app.post(UPLOAD, async (request, reply) =>
    reply
      .headers(jsonHeaders())
      .send(JSON.stringify(await flow.upload(request.headers['content-type'], request.raw))),
  );
  app.post(CONVERT, async (request, reply) =>
    reply.headers(jsonHeaders()).send(JSON.stringify(await flow.convert(request.body))),
  );
  app.get<{ Querystring: { id?: string } }>(DOWNLOAD, async (request, reply) => {
    const { headers, stream } = await flow.download(request.query.id);
    return reply.headers(headers).send(stream);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no port');
  return { port: address.port, stop: () => app.close() };
}

/** The bare baseline in `framework`. */
export function startBare(framework: Framework, settings: BareSettings): Promise<Listening> {
  const flow = flowB(settings.dir);
  switch (framework) {
    case 'node':
      return listenLocal(createServer(nodeListener(settings, flow)));
    case 'express':
      return listenLocal(createServer(expressApp(settings, flow)));
    case 'fetch': {
      const handler = fetchHandler(settings, flow);
      return listenLocal(fetchServer((request) => handler(request)));
    }
    case 'hono':
      return listenLocal(createAdaptorServer({ fetch: honoApp(settings, flow).fetch }) as Server);
    case 'fastify':
      return listenFastify(settings, flow);
  }
}
