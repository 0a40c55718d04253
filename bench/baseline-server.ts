import http from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Fetches one response from Teamstage so the baseline can serve a byte-identical copy. */
export async function recordResponse(url: string, headers: Record<string, string>): Promise<RecordedResponse> {
  const response = await fetch(url, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  const kept: Record<string, string> = {};
  for (const name of ['content-type']) {
    const value = response.headers.get(name);
    if (value) kept[name] = value;
  }
  if (response.status >= 400) throw new Error(`recording ${url} answered ${response.status}: ${body.toString()}`);
  return { status: response.status, headers: kept, body };
}

/**
 * The physical limit: a bare node:http server answering every request from memory with the recorded
 * bytes. Whatever Teamstage does beyond this (routing, auth, SQL, serialization) is its overhead.
 */
export async function startBaselineServer(response: RecordedResponse): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, reply) => {
    request.resume();
    request.on('end', () => {
      reply.writeHead(response.status, { ...response.headers, 'content-length': response.body.length });
      reply.end(response.body);
    });
  });
  return listenOnLoopback(server);
}
