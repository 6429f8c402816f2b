/** Raw tus requests for the /api/tus tests: creation, HEAD, PATCH and DELETE with fetch. */
import { type ApiResponse, type Caller, call, type TestServer } from './harness.js';

export const TUS = { 'tus-resumable': '1.0.0' };

function withCaller(caller: Caller | undefined, headers: Record<string, string>) {
  if (caller === undefined) return { headers };
  if (typeof caller === 'string') return { client: caller, headers };
  return { ...caller, headers: { ...caller.headers, ...headers } };
}

export function encodeMetadata(pairs: Record<string, string>): string {
  return Object.entries(pairs)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');
}

/** POST /api/tus; resolves with the answer and, on 201, the upload's path below the server URL and id. */
export async function createTusUpload(
  server: TestServer,
  size: number,
  options: { caller?: Caller; metadata?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...TUS, 'upload-length': String(size), ...options.headers };
  if (options.metadata) headers['upload-metadata'] = encodeMetadata(options.metadata);
  const response = await call(server, 'POST', '/api/tus', withCaller(options.caller, headers));
  const location = response.headers.get('location') ?? '';
  const id = location.split('/').at(-1) ?? '';
  return { response, location, id, path: `/api/tus/${id}` };
}

export function tusHead(server: TestServer, path: string, caller?: Caller): Promise<ApiResponse> {
  return call(server, 'HEAD', path, withCaller(caller, { ...TUS }));
}

export function tusPatch(
  server: TestServer,
  path: string,
  offset: number,
  bytes: Uint8Array,
  options: { caller?: Caller; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  return call(server, 'PATCH', path, {
    ...withCaller(options.caller, {
      ...TUS,
      'content-type': 'application/offset+octet-stream',
      'upload-offset': String(offset),
      ...options.headers,
    }),
    body: bytes,
  });
}

export function tusDelete(server: TestServer, path: string, caller?: Caller): Promise<ApiResponse> {
  return call(server, 'DELETE', path, withCaller(caller, { ...TUS }));
}

/** The partial files of unfinished uploads the fs storage holds. */
export async function partialFiles(server: TestServer): Promise<string[]> {
  return (await server.storedFiles()).filter((file) => file.startsWith('.fileconv-resumable'));
}
