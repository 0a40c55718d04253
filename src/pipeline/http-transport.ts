import http from 'node:http';
import https from 'node:https';

/**
 * One HTTP request over node:http(s), answered with its status, headers and body text. Not `fetch`: a
 * pipeline client is a short process started four times per job, and loading fetch's implementation
 * (undici) cost about 0.1 s of CPU in each, a third of the process's whole cost. Connections are kept
 * alive between the requests of one command (idle ones do not hold the process open).
 */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

export function send(method: string, url: string, headers: Record<string, string>, body: Buffer | undefined, timeoutMs: number): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(
      target,
      {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(body.length) },
        agent: agents[target.protocol as keyof typeof agents],
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`), { code: 'ETIMEDOUT' })));
    request.on('error', reject);
    request.end(body);
  });
}
