/**
 * The request body for a consumer that may give up on it mid-way: storage that fails while
 * writing (a full disk, a byte too many) destroys the stream it was reading, and on Node
 * destroying the request destroys its socket, so the client would get a reset instead of the
 * answer, and the service would take the failure for a client that left. The consumer gets a
 * stream of its own, fed from the request: destroying it stops the feed and leaves the request,
 * and the connection, to answer on. A client that leaves mid-body still breaks it off.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { HttpExchange } from './exchange.js';

export function shieldedBody(exchange: HttpExchange): Readable {
  const source = exchange.body();
  const through = new PassThrough();
  let ended = false;
  const onEnd = () => {
    ended = true;
  };
  const onError = (error: Error) => through.destroy(error);
  const onClose = () => {
    if (!ended) through.destroy(new Error('The request body was cut off.'));
  };
  source.once('end', onEnd);
  source.once('error', onError);
  source.once('close', onClose);
  through.once('close', () => {
    source.unpipe(through);
    source.off('end', onEnd);
    source.off('error', onError);
    source.off('close', onClose);
  });
  source.pipe(through);
  return through;
}
