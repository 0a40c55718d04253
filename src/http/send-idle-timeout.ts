import net from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Bounds how long an answer may wait for its client (TEAMSTAGE_HTTP_SEND_IDLE_TIMEOUT). From the moment an
 * answer starts until it is all handed to the operating system, the connection's inactivity timeout is
 * `seconds`: a client that takes nothing more (it stopped reading, or reads so slowly that one write does not
 * go out) has its connection destroyed, and what the answer still held is freed. node:http checks once per
 * period and lets a write that was in progress at the first check run one more, so the cut comes between
 * one and two periods after the client's last progress. Large answers stream with backpressure (reply.ts sendStored), so such a
 * client holds about two pieces until then. Once the answer is out, node:http puts the keep-alive timeout
 * in its place; while a request is received or handled this timeout is not set (the request and
 * receive-idle timeouts bound those).
 */
export function limitSendIdle(app: FastifyInstance, seconds: number): void {
  const ms = seconds * 1000;
  app.addHook('onSend', async (request, reply, payload) => {
    const response = reply.raw;
    // app.inject's responses have no real socket (light-my-request gives them a stand-in, and its setTimeout is
    // a plain timer that is never cleared): nothing to time out, and such a timer would keep a test process
    // alive for `seconds` after its last request.
    if (!(response.socket instanceof net.Socket)) return payload;
    response.setTimeout(ms, () => {
      request.log.warn({ sendIdleTimeoutSeconds: seconds, url: request.url }, 'the client took none of the answer in time; the connection is cut');
      response.destroy();
    });
    return payload;
  });
}
