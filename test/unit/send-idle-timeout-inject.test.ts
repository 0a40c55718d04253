import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { limitSendIdle } from '../../src/http/send-idle-timeout.js';

describe('the send idle timeout and app.inject', () => {
  // light-my-request's stand-in response has a socket-like object and a setTimeout that starts a plain timer it
  // never clears: set on an injected answer, every test process stayed alive for the whole timeout (30 s) after
  // its last request, which cost the test suite about a third of its time.
  it('sets no timer on an injected answer; it still sets one on an answer over a real socket', async () => {
    const app = Fastify();
    limitSendIdle(app, 30);
    const timers: unknown[] = [];
    app.addHook('onResponse', async (_request, reply) => {
      timers.push((reply.raw as unknown as { timeoutHandle?: unknown }).timeoutHandle ?? null);
    });
    // Over a real socket the response's setTimeout is node:http's (the socket's idle timeout): recorded here.
    let socketTimeout: number | undefined;
    app.addHook('onRequest', async (request) => {
      const socket = request.raw.socket;
      if (!(socket instanceof net.Socket)) return;
      const original = socket.setTimeout.bind(socket);
      socket.setTimeout = ((ms: number, callback?: () => void) => {
        socketTimeout ??= ms;
        return original(ms, callback);
      }) as typeof socket.setTimeout;
    });
    app.get('/', async () => ({ ok: true }));
    const injected = await app.inject({ method: 'GET', url: '/' });
    assert.equal(injected.statusCode, 200);
    assert.deepEqual(timers, [null]);

    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const answer = await fetch(address);
      assert.equal(answer.status, 200);
      assert.equal(socketTimeout, 30_000);
    } finally {
      await app.close();
    }
  });
});
