/**
 * A client that goes away in the middle of its request body (a multipart upload, small or
 * streamed, or a JSON body) is not a server failure: the process stays up, nothing is reported
 * to the host's onError, nothing is kept, and the server goes on serving. Run through every
 * adapter (FILECONV_HTTP_ADAPTER): the fetch handler on @hono/node-server once let the broken
 * body's 'error' event go unheard, which took the whole process down.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { expectAlive, PREFIX, startServer } from './harness.js';

const multipartHead =
  '--cut\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\n' +
  'Content-Type: text/plain\r\n\r\n';

/** Sends the head and `sent` of a body declared `declared` bytes long, then closes the connection. */
async function leaveMidBody(url: string, path: string, contentType: string, declared: number, sent: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.on('error', () => {});
  socket.write(
    `POST ${PREFIX}${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: ${contentType}\r\n` +
      `Content-Length: ${declared}\r\n\r\n${sent}`,
  );
  await sleep(100);
  socket.destroy();
  await sleep(200);
}

it.each([
  ['a small multipart upload', 3000, 1000],
  ['a streamed multipart upload', 300_000, 100_000],
])('a client leaving mid-body (%s) is not a server error', async (_name, declared, sent) => {
  const server = await startServer();
  await leaveMidBody(
    server.url,
    '/api/upload',
    'multipart/form-data; boundary=cut',
    declared,
    multipartHead + 'x'.repeat(sent),
  );
  expect(server.serverErrors).toEqual([]);
  expect((await server.storedFiles()).filter((path) => !path.includes('tmp'))).toEqual([]);
  await expectAlive(server);
});

it('a client leaving mid-way through a JSON body is not a server error', async () => {
  const server = await startServer();
  await leaveMidBody(server.url, '/api/convert', 'application/json', 500, '{"fileId": "abc');
  expect(server.serverErrors).toEqual([]);
  await expectAlive(server);
});
