/**
 * The entry of a baseline server's own process (bench/baseline-process.ts). Teamstage runs in a process
 * of its own, apart from the load generator; so does its baseline, or the baseline would skip what every
 * request to Teamstage pays: a loopback write that wakes another process (on this kind of VM, tens of µs).
 */
import { startBaselineServer, type RecordedResponse } from './baseline-server.js';
import { startInsertBaselineServer } from './insert-baseline-server.js';

export interface BaselineSpec {
  kind: 'static' | 'insert';
  response: { status: number; headers: Record<string, string>; bodyBase64: string };
  databaseUrl?: string;
}

process.once('message', async (spec: BaselineSpec) => {
  const response: RecordedResponse = { ...spec.response, body: Buffer.from(spec.response.bodyBase64, 'base64') };
  const server = spec.kind === 'insert' ? await startInsertBaselineServer(spec.databaseUrl!, response) : await startBaselineServer(response);
  // The parent going away (normally or not) ends this process too.
  process.once('disconnect', () => void server.close().finally(() => process.exit(0)));
  process.send!({ url: server.url });
});
