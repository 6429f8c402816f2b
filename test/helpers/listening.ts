/** A node:http server on a free port of 127.0.0.1, as an HTTP conformance suite mount. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningMount {
  /** The mount's URL: the server's origin plus `basePath`. */
  url: string;
  /** Closes every connection, then the server. */
  close(): Promise<void>;
}

export async function listening(server: Server, basePath: string): Promise<ListeningMount> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${basePath}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
