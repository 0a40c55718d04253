import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the mock run task service received, with its signature already checked. */
export interface RecordedTaskRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact body bytes as text (what the signature covers). */
  body: string;
  /** The parsed body, or undefined when it was not JSON. */
  json: any;
  /** X-TFC-Task-Signature as sent. */
  signature: string | undefined;
  /** Whether the signature is the hex HMAC-SHA512 of the body under `hmacKey` (an empty header when there is no key). */
  signatureValid: boolean;
  receivedAt: number;
}

export interface TaskResponse {
  status: number;
  body?: string;
  /** Wait this long before answering (to provoke timeouts). */
  delayMs?: number;
}

export type TaskResponder = (request: RecordedTaskRequest) => TaskResponse | Promise<TaskResponse>;

export function expectedSignature(body: string, hmacKey: string | null): string {
  return hmacKey ? createHmac('sha512', hmacKey).update(body, 'utf8').digest('hex') : '';
}

/**
 * A run task service on 127.0.0.1 for tests: records every request, checks its signature against
 * `hmacKey`, and answers what `respond` says (200 by default). Reusable and extensible: change
 * `hmacKey` or `respond` at any time; `waitForRequests` blocks until enough requests arrived.
 */
export class MockTaskService {
  readonly requests: RecordedTaskRequest[] = [];
  hmacKey: string | null;
  respond: TaskResponder;
  private waiters: Array<() => void> = [];
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(
    private readonly server: http.Server,
    options: { hmacKey?: string | null; respond?: TaskResponder },
  ) {
    this.hmacKey = options.hmacKey ?? null;
    this.respond = options.respond ?? (() => ({ status: 200 }));
  }

  /** `host`: the loopback address to listen on (127.0.0.1 by default; any 127.x.y.z works on Linux). */
  static async start(options: { hmacKey?: string | null; respond?: TaskResponder; host?: string } = {}): Promise<MockTaskService> {
    let service!: MockTaskService;
    const server = http.createServer((request, response) => void service.handle(request, response));
    service = new MockTaskService(server, options);
    server.on('connection', (socket) => {
      service.sockets.add(socket);
      socket.on('close', () => service.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
    return service;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get host(): string {
    return (this.server.address() as AddressInfo).address;
  }

  /** The task URL to register (any path works; requests record it). */
  get url(): string {
    return `http://${this.host}:${this.port}/run-task`;
  }

  /** Answer every request with this status from now on. */
  answer(status: number, delayMs = 0): void {
    this.respond = () => ({ status, delayMs });
  }

  async waitForRequests(count: number, timeoutMs = 10_000): Promise<RecordedTaskRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} run task requests, got ${this.requests.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.requests.slice(0, count);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const signature = request.headers['x-tfc-task-signature'] as string | undefined;
    const expected = expectedSignature(body, this.hmacKey);
    const signatureValid =
      signature !== undefined && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
    const recorded: RecordedTaskRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body,
      json,
      signature,
      signatureValid,
      receivedAt: Date.now(),
    };
    this.requests.push(recorded);
    for (const wake of this.waiters.splice(0)) wake();
    const answer = await this.respond(recorded);
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    if (response.destroyed) return;
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(answer.body ?? '{}');
  }
}
