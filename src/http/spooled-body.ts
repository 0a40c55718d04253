import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Errors, type ApiError } from '../core/errors.js';

/** A request body written to a temporary file, read back in pieces; `dispose()` removes the file. */
export interface SpooledBody {
  size: number;
  /** The temporary file (mode 0600), for a reader in another thread. */
  path: string;
  /** The bytes in pieces of at most `pieceBytes`. */
  read(pieceBytes?: number): AsyncIterable<Buffer>;
  dispose(): Promise<void>;
}

export interface SpoolOptions {
  /** The refusal of a body over the limit (default: 413). */
  tooLarge?: (limit: number) => ApiError;
  /** A body from which nothing arrives for this long is refused with a 408 (TEAMSTAGE_HTTP_RECEIVE_IDLE_TIMEOUT). */
  idleSeconds?: number;
}

/**
 * Writes a request body to a temporary file while counting its bytes, so that a body of any size costs a
 * few stream buffers of memory, never its size: over `limit` bytes (declared or received) it stops with a
 * 413 (or what `tooLarge` makes) and the file is gone; so it does when nothing arrives for `idleSeconds`
 * (408). The request is left unread, not destroyed, so that the refusal can be answered; the error handler
 * then ends the connection (credentials-before-body.ts: limitUnreadBodyAfterRefusal). A client that
 * disconnects midway gets a 400 that nobody reads.
 */
export async function spoolBody(body: Readable, limit: number, declaredLength: string | undefined, options: SpoolOptions = {}): Promise<SpooledBody> {
  const tooLarge = options.tooLarge ?? Errors.bodyTooLarge;
  if (declaredLength !== undefined && Number(declaredLength) > limit) throw tooLarge(limit);
  const file = path.join(os.tmpdir(), `teamstage-body-${randomUUID()}`);
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      idle?.refresh();
      callback(size > limit ? tooLarge(limit) : null, chunk);
    },
  });
  const idle = options.idleSeconds
    ? setTimeout(() => counter.destroy(Errors.bodyStalled(options.idleSeconds!)), options.idleSeconds * 1000)
    : undefined;
  const clientFailed = () => counter.destroy(Errors.bodyEndedEarly());
  body.once('error', clientFailed);
  body.once('aborted', clientFailed);
  // pipe, not pipeline: a refusal stops reading the request without destroying it (and its socket).
  body.pipe(counter);
  const dispose = () => fs.promises.rm(file, { force: true });
  try {
    await pipeline(counter, fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    body.unpipe(counter);
    body.pause();
    await dispose();
    throw error;
  } finally {
    clearTimeout(idle);
    body.off('error', clientFailed);
    body.off('aborted', clientFailed);
  }
  return {
    size,
    path: file,
    read: (pieceBytes = 64 * 1024) => fs.createReadStream(file, { highWaterMark: pieceBytes }),
    dispose,
  };
}
