import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

/**
 * A run task service on 127.0.0.1 whose deliveries never get an answer: it accepts the connection,
 * reads the request and keeps it open until the client gives up (a hung or tar-pitted endpoint). The
 * verification request of task creation (stage `test`) is answered 200, so tasks can point at it.
 */
export class HangingTaskService {
  /** Deliveries received so far (verification requests not counted). */
  received = 0;
  /** Deliveries whose client is still waiting for an answer. */
  open = 0;
  /** The most deliveries waiting at once. */
  mostOpen = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<HangingTaskService> {
    let service!: HangingTaskService;
    const server = http.createServer((request, response) => void service.handle(request, response));
    service = new HangingTaskService(server);
    server.on('connection', (socket) => {
      service.sockets.add(socket);
      socket.on('close', () => service.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return service;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hang`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let stage: unknown;
    try {
      stage = JSON.parse(Buffer.concat(chunks).toString('utf8')).stage;
    } catch {
      stage = undefined;
    }
    if (stage === 'test') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
      return;
    }
    this.received += 1;
    this.open += 1;
    this.mostOpen = Math.max(this.mostOpen, this.open);
    response.on('close', () => (this.open -= 1));
  }
}
