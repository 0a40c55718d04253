import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Errors, ApiError } from '../core/errors.js';

/** A request body written to a temporary file, read back in pieces; `dispose()` removes the file. */
export interface SpooledBody {
  size: number;
  /** The temporary file (mode 0600), for a reader in another thread. */
  path: string;
  /** The bytes in pieces of at most `pieceBytes`. */
  read(pieceBytes?: number): AsyncIterable<Buffer>;
  dispose(): Promise<void>;
}

/**
 * Writes a request body to a temporary file while counting its bytes, so that a body of any size costs a
 * few stream buffers of memory, never its size: over `limit` bytes (declared or received) it stops with a
 * 413 (or what `tooLarge` makes) and the file is gone. A client that disconnects midway gets a 400 that nobody reads.
 */
export async function spoolBody(body: Readable, limit: number, declaredLength: string | undefined, tooLarge: (limit: number) => ApiError = Errors.bodyTooLarge): Promise<SpooledBody> {
  if (declaredLength !== undefined && Number(declaredLength) > limit) throw tooLarge(limit);
  const file = path.join(os.tmpdir(), `teamstage-body-${randomUUID()}`);
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      callback(size > limit ? tooLarge(limit) : null, chunk);
    },
  });
  const dispose = () => fs.promises.rm(file, { force: true });
  let clientFailed = false;
  body.once('error', () => (clientFailed = true));
  try {
    await pipeline(body, counter, fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    await dispose();
    if (clientFailed && !(error instanceof ApiError)) throw Errors.bodyEndedEarly();
    throw error;
  }
  return {
    size,
    path: file,
    read: (pieceBytes = 64 * 1024) => fs.createReadStream(file, { highWaterMark: pieceBytes }),
    dispose,
  };
}
