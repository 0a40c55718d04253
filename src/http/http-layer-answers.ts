import http, { type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Errors, type ApiError } from '../core/errors.js';
import { errorObjectOf } from './error-document.js';
import { SECURITY_HEADERS } from './security-headers.js';

/**
 * Answers that node:http gives by itself unless told otherwise: 400 for a malformed request, 408 for a
 * request not received in time, 431 for oversized headers, 417 for an unknown `Expect`, 400 for a
 * missing `Host`. Each becomes a JSON:API error document like every other answer, so clients parse one format.
 */

/** Node's default limit on the request line plus headers, stated so that no `--max-http-header-size` moves it. */
export const MAX_HEADER_BYTES = 16 * 1024;

function errorDocument(error: ApiError): string {
  return JSON.stringify({ errors: [errorObjectOf(error)] });
}

/** Answers through a response nothing has written to yet, and closes the connection after it. */
export function answerWithError(response: ServerResponse, error: ApiError): void {
  const body = errorDocument(error);
  response.writeHead(error.status, {
    'content-type': 'application/vnd.api+json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
    ...SECURITY_HEADERS,
  });
  response.end(body);
}

/** A whole HTTP/1.1 answer as text, for errors raised where there is no response object to write through. */
function rawAnswer(error: ApiError): string {
  const body = errorDocument(error);
  const status = error.status;
  return (
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n` +
    `Content-Type: application/vnd.api+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n` +
    `X-Content-Type-Options: ${SECURITY_HEADERS['x-content-type-options']}\r\n\r\n${body}`
  );
}

/**
 * The response being written on each socket. A client error (a timeout in the middle of a body) may come
 * while a response exists for the request: an answer may then be written only if that response has not
 * started, or the client would read a corrupted stream. node:http knows this through a private field.
 */
export class InFlightResponses {
  private readonly bySocket = new WeakMap<Socket, ServerResponse>();

  track(socket: Socket, response: ServerResponse): void {
    this.bySocket.set(socket, response);
  }

  /** Whether an answer is being written on the socket (one that has finished leaves the socket free). */
  answerStartedOn(socket: Socket): boolean {
    const response = this.bySocket.get(socket);
    return response !== undefined && response.headersSent && !response.writableFinished;
  }
}

interface ClientError extends Error {
  code?: string;
  /** node:http: the packet being parsed when the error occurred (a Buffer; Fastify's types say otherwise). */
  rawPacket?: unknown;
}

/**
 * Fastify's `clientErrorHandler`: node:http's `clientError`, answered as JSON:API, then the connection
 * closed (what node:http and Fastify do by default, with their own bodies).
 */
export function clientErrorAnswers(responses: InFlightResponses): (error: ClientError, socket: Socket) => void {
  return (error, socket) => {
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable && !responses.answerStartedOn(socket)) {
      socket.write(rawAnswer(describe(error)));
    }
    socket.destroy(error);
  };
}

function describe(error: ClientError): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return Errors.requestTimedOut();
    case 'HPE_HEADER_OVERFLOW':
      return requestLineOverflowed(error.rawPacket) ? Errors.requestLineTooLong(MAX_HEADER_BYTES / 1024) : Errors.headersTooLarge(MAX_HEADER_BYTES / 1024);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return Errors.chunkExtensionsTooLarge();
    default:
      return Errors.notHttp();
  }
}

/**
 * node:http counts the request line into the header limit and reports both the same way. The URL is to
 * blame when the packet that overflowed starts the request and its first line alone is too long; when the
 * packet does not start the request, which part overflowed is unknown and 431 (node's answer) stays.
 */
function requestLineOverflowed(packet: unknown): boolean {
  if (!Buffer.isBuffer(packet) || !/^[A-Z]+ /.test(packet.subarray(0, 32).toString('latin1'))) return false;
  const lineEnd = packet.indexOf('\n');
  return lineEnd === -1 || lineEnd >= MAX_HEADER_BYTES;
}
