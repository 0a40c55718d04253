import type { AddressInfo } from 'node:net';
import { createTestApp, type TestContext } from './test-app.js';
import { ensureWebBuilt } from './web-build.js';

/** The whole server on SQLite, listening on 127.0.0.1 (a free port), with the console built from src/web. */
export async function startConsoleServer(env: Record<string, string> = {}): Promise<{ ctx: TestContext; url: string; close(): Promise<void> }> {
  await ensureWebBuilt();
  const ctx = await createTestApp('sqlite', env);
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = ctx.app.server.address() as AddressInfo;
  return { ctx, url: `http://127.0.0.1:${port}`, close: () => ctx.close() };
}
