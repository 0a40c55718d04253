import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const TAR_BLOCK = 512;
const GZIP_MIN_BYTES = 18;

/**
 * Whether an upload of `size` bytes is a tar.gz, judged from its start: gzip magic, a gzip stream that
 * inflates, and a first 512-byte tar block that is either a ustar header, a header with a valid checksum
 * (old v7 tar) or zeros (an empty archive). Only what yields the first block is read and inflated, so a
 * 100 MiB upload costs microseconds, not a full decompression. Returns why it is not, or undefined.
 */
export async function tarGzProblem(size: number, content: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<string | undefined> {
  if (size === 0) return 'the upload is empty; send a tar.gz of the configuration';
  const notGzip = 'the upload is not gzip-compressed; send a tar.gz of the configuration';
  if (size < GZIP_MIN_BYTES) return notGzip;
  let head: Buffer;
  try {
    head = await inflateStart(content, TAR_BLOCK);
  } catch (error) {
    return error instanceof NotGzip ? notGzip : 'the upload is not a valid gzip stream';
  }
  if (head.length < TAR_BLOCK) return 'the upload does not contain a tar archive';
  if (!isTarHeader(head)) return 'the upload does not contain a tar archive';
  return undefined;
}

class NotGzip extends Error {}

/** The content, refused at once unless its first two bytes are the gzip magic. */
async function* gzipOnly(content: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<Buffer> {
  let start = Buffer.alloc(0);
  for await (const chunk of content) {
    if (start.length < 2) {
      start = Buffer.concat([start, chunk.subarray(0, 2 - start.length)]);
      if (start.length === 2 && (start[0] !== 0x1f || start[1] !== 0x8b)) throw new NotGzip();
    }
    yield chunk;
  }
}

/** The first `bytes` inflated bytes (fewer if the stream holds fewer); stops reading once it has them. */
async function inflateStart(content: AsyncIterable<Buffer> | Iterable<Buffer>, bytes: number): Promise<Buffer> {
  const input = Readable.from(gzipOnly(content));
  const gunzip = createGunzip();
  let inputError: unknown;
  input.once('error', (error) => {
    inputError = error;
    gunzip.destroy(error);
  });
  input.pipe(gunzip);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= bytes) break;
    }
  } catch (error) {
    // A truncated stream that already gave a whole first block is judged by that block.
    if (inputError instanceof NotGzip) throw inputError;
    if (length < bytes) throw error;
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  return Buffer.concat(chunks).subarray(0, bytes);
}

function isTarHeader(block: Buffer): boolean {
  if (block.every((byte) => byte === 0)) return true;
  if (block.subarray(257, 262).toString('latin1') === 'ustar') return true;
  // v7 header: the checksum field (octal, at 148..155) equals the byte sum with that field as spaces.
  const stored = parseInt(block.subarray(148, 156).toString('latin1').replace(/\0.*$/, '').trim(), 8);
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum === stored;
}
