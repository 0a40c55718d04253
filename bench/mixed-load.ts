import autocannon from 'autocannon';
import type { LoadResult } from './measure.js';

export interface MixedLoadOptions {
  /** One base URL per node; the connections are split evenly between them. */
  urls: string[];
  connections: number;
  durationSeconds: number;
  /**
   * What the connections walk through, each in its own order: team ids (GET and PATCH /teams/:id), or
   * keys that `getPath` turns into a GET's path (PATCH needs team ids).
   */
  keys: string[];
  /** Tokens: each connection keeps one (`perConnection`), or every request takes the next (`rotate`). */
  tokens: string[];
  tokenUse: 'perConnection' | 'rotate';
  /** Share of PATCH /teams/:id among the requests (0 for reads only). */
  patchShare: number;
  /** The path a GET of `key` asks for (default: the team `key` itself). */
  getPath?: (key: string) => string;
}


function shuffled(n: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * What users send (issue 18): every connection walks its own random order through the teams (or queries),
 * so no two connections ask for the same one at the same moment and no cache of recent answers can flatter the
 * figure; `patchShare` of the requests change the team instead of reading it.
 */
export async function mixedLoad(options: MixedLoadOptions): Promise<LoadResult> {
  const perNode = Math.max(1, Math.round(options.connections / options.urls.length));
  let nextToken = 0;
  const getPath = options.getPath ?? ((id: string) => `/api/v2/teams/${id}`);
  const results = await Promise.all(
    options.urls.map((url) =>
      autocannon({
        url,
        connections: perNode,
        duration: options.durationSeconds,
        requests: [
          {
            setupRequest: (request: any, context: any) => {
              context.order ??= shuffled(options.keys.length);
              context.at ??= 0;
              context.token ??= options.tokens[nextToken++ % options.tokens.length];
              const index = context.order[context.at++ % context.order.length] as number;
              const key = options.keys[index]!;
              const token = options.tokenUse === 'rotate' ? options.tokens[nextToken++ % options.tokens.length] : context.token;
              const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
              if (options.patchShare > 0 && Math.random() < options.patchShare) {
                const body = JSON.stringify({ data: { type: 'teams', attributes: { visibility: Math.random() < 0.5 ? 'secret' : 'organization' } } });
                return { ...request, method: 'PATCH', path: `/api/v2/teams/${key}`, headers, body };
              }
              return { ...request, method: 'GET', path: getPath(key), headers, body: undefined };
            },
          },
        ],
      }),
    ),
  );
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    total: results.reduce((sum, r) => sum + r.requests.total, 0),
    // Per node's p50/p99, the worst one (the nodes are loaded alike).
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
  };
}
