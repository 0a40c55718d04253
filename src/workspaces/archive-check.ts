import { createGunzip } from 'node:zlib';

const TAR_BLOCK = 512;

/**
 * Whether an upload is a tar.gz, judged from its start: gzip magic, a gzip stream that inflates,
 * and a first 512-byte tar block that is either a ustar header, a header with a valid checksum (old
 * v7 tar) or zeros (an empty archive). Only the first block is inflated, so a 100 MiB upload costs
 * microseconds, not a full decompression. Returns why it is not, or undefined.
 */
export async function tarGzProblem(archive: Buffer): Promise<string | undefined> {
  if (archive.length === 0) return 'the upload is empty; send a tar.gz of the configuration';
  if (archive.length < 18 || archive[0] !== 0x1f || archive[1] !== 0x8b) return 'the upload is not gzip-compressed; send a tar.gz of the configuration';
  let head: Buffer;
  try {
    head = await inflateStart(archive, TAR_BLOCK);
  } catch {
    return 'the upload is not a valid gzip stream';
  }
  if (head.length < TAR_BLOCK) return 'the upload does not contain a tar archive';
  if (!isTarHeader(head)) return 'the upload does not contain a tar archive';
  return undefined;
}

function inflateStart(archive: Buffer, bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip();
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      gunzip.removeAllListeners('data');
      gunzip.destroy();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks).subarray(0, bytes));
    };
    gunzip.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= bytes) finish();
    });
    gunzip.on('end', () => finish());
    gunzip.on('error', (error) => (length >= bytes ? finish() : finish(error)));
    gunzip.end(archive);
  });
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
