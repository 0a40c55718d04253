import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How every bench-side server (baselines, limits) listens: on 127.0.0.1, a free port, connections kept
 * alive as the load generator keeps them. `close` stops listening, then lets go of what the server used.
 */
export async function listenOnLoopback(server: http.Server, release: () => unknown = () => {}): Promise<{ url: string; close(): Promise<void> }> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await release();
    },
  };
}
