import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the connection's start to the end of this response. */
  atMs: number;
}

/**
 * One TCP connection speaking HTTP/1.1 by hand, for what a client library would not do: send headers
 * without the body they announce, dribble a body, send malformed or oversized requests, or wait for the
 * server to close. Every wait is bounded.
 */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private closedAt: number | undefined;
  private readonly started = Date.now();
  private readonly waiters = new Set<() => void>();
  private parsed = 0;
  readonly responses: RawResponse[] = [];

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
      this.wake();
    });
    // The server may reset a connection it refuses; what it answered before still counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closedAt = Date.now();
      this.wake();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedAt !== undefined;
  }

  /** Milliseconds from the start until the server closed the connection, if it did. */
  get closedAfterMs(): number | undefined {
    return this.closedAt === undefined ? undefined : this.closedAt - this.started;
  }

  /** Writes unless the connection is gone; answers whether it wrote. */
  write(data: string | Buffer): Promise<boolean> {
    if (this.closed || this.socket.destroyed || !this.socket.writable) return Promise.resolve(false);
    return new Promise((resolve) => this.socket.write(data, (error) => resolve(!error)));
  }

  /** The final response number `index` (interim 1xx answers are kept in `responses` too), or undefined after `timeoutMs`. */
  async response(timeoutMs: number, index = 0): Promise<RawResponse | undefined> {
    await this.until(() => this.finalResponses().length > index || this.closed, timeoutMs);
    return this.finalResponses()[index];
  }

  /** Whether the server closed the connection within `timeoutMs`. */
  async waitForClose(timeoutMs: number): Promise<boolean> {
    await this.until(() => this.closed, timeoutMs);
    return this.closed;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private finalResponses(): RawResponse[] {
    return this.responses.filter((response) => response.status >= 200);
  }

  private until(condition: () => boolean, timeoutMs: number): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve();
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Splits what arrived into responses (Content-Length bodies, or none for 1xx/204). */
  private parse(): void {
    for (;;) {
      const rest = this.buffer.subarray(this.parsed);
      const headEnd = rest.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const [statusLine, ...lines] = rest.subarray(0, headEnd).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = status < 200 || status === 204 ? 0 : Number(headers['content-length'] ?? 0);
      if (rest.length < headEnd + 4 + length) return;
      const body = rest.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
      this.responses.push({ status, headers, body, atMs: Date.now() - this.started });
      this.parsed += headEnd + 4 + length;
    }
  }
}

/** Asserts-free check that a raw answer is a JSON:API error document of `status`; answers its first error. */
export function jsonApiError(response: RawResponse | undefined): { status: string; title: string; detail?: string } | undefined {
  if (!response) return undefined;
  if (!/^application\/vnd\.api\+json/.test(response.headers['content-type'] ?? '')) return undefined;
  try {
    const document = JSON.parse(response.body) as { errors?: Array<{ status: string; title: string; detail?: string }> };
    return document.errors?.[0];
  } catch {
    return undefined;
  }
}
