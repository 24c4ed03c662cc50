import { createGunzip } from 'node:zlib';

export class BodyError extends Error {
  constructor(
    readonly kind: 'too_large' | 'bad_encoding' | 'unsupported_encoding' | 'aborted',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a request body, inflating gzip, and refuses more than `maxBytes` measured after
 * decompression. The limit is enforced while reading and while inflating, so neither a
 * huge upload nor a small gzip bomb is ever held in memory whole. `hold` is told every byte
 * before it is held (the declared length up front, bytes beyond it as they arrive, the
 * inflated size) and may throw to stop the read.
 */
export async function readBody(request: Request, maxBytes: number, hold: (bytes: number) => void = () => {}): Promise<Uint8Array> {
  const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== '') {
    throw new BodyError('unsupported_encoding', `unsupported Content-Encoding ${JSON.stringify(encoding)}: send gzip or none`);
  }
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const announced = Number.isFinite(declared) && declared > 0 ? declared : 0;
  hold(announced);
  const raw = await readLimited(request, maxBytes, announced, hold);
  if (encoding !== 'gzip') return raw;
  if (declaredSize(raw) > maxBytes) throw tooLarge(maxBytes);
  return inflate(raw, maxBytes, hold);
}

/**
 * The size a gzip body says it inflates to: its last member's trailer (ISIZE, the size
 * modulo 4 GiB; zlib checks it once inflated, so a body whose trailer lies is bad gzip).
 * Over the limit, the body is refused before any inflating: the fuzz bench's gzip bombs
 * held 64 MiB of zeros each, the libuv threads and a full collection on the main thread
 * (external memory) before their 413, and answered in up to 8.6 s. A bomb whose trailer
 * wraps or lies below the limit still stops at the limit while inflating.
 */
function declaredSize(raw: Uint8Array): number {
  if (raw.byteLength < 18) return 0;
  const size = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).readUInt32LE(raw.byteLength - 4);
  // A size no deflate stream of this length can reach is no trailer (a truncated body ends
  // in compressed data): it is left to inflating, which says the body is bad gzip.
  return size <= raw.byteLength * MAX_DEFLATE_RATIO ? size : 0;
}

/** Deflate's largest ratio: one 258-byte match per 2 bits at best, about 1032 to 1. */
const MAX_DEFLATE_RATIO = 1032;

const INFLATE_CHUNK_BYTES = 1024 * 1024;

/**
 * Inflates chunk by chunk, each held before it is kept: a gzip bomb stops at the body limit
 * (413) or as soon as the in-flight budget cannot hold it (503), not after megabytes more.
 */
function inflate(raw: Uint8Array, maxBytes: number, hold: (bytes: number) => void): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // Output in 1 MiB chunks (zlib's default is 16 KiB): a bomb reaches the limit in 64 thread-pool round trips, not 4,096.
    const gunzip = createGunzip({ chunkSize: INFLATE_CHUNK_BYTES });
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = (err: unknown) => {
      gunzip.destroy();
      reject(err);
    };
    gunzip.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) return stop(tooLarge(maxBytes));
      try {
        hold(chunk.byteLength);
      } catch (err) {
        return stop(err);
      }
      chunks.push(chunk);
    });
    gunzip.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
    gunzip.on('error', (err) => reject(new BodyError('bad_encoding', `the body is not valid gzip: ${err.message}`)));
    gunzip.end(raw);
  });
}

async function readLimited(request: Request, maxBytes: number, announced: number, hold: (bytes: number) => void): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let held = announced;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read().catch((err: unknown) => {
      // The connection is gone: the client gave up, or Node cut it off as too slow (408).
      throw new BodyError('aborted', `the request body was not received whole: ${(err as Error).message}`);
    });
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    if (total > held) {
      try {
        hold(total - held);
      } catch (err) {
        // Refused for want of room, not for its size: the rest is left for discardBody.
        reader.releaseLock();
        throw err;
      }
      held = total;
    }
    chunks.push(value);
  }
  reader.releaseLock();
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/** How long discardBody reads on: while bytes keep coming, within an overall bound. */
export interface DiscardLimits {
  maxBytes: number;
  /** Given up when no bytes arrive for this long: a stalled client. */
  idleMs: number;
  /** And after this in all. */
  totalMs: number;
}

/**
 * Reads and drops what is left of a refused request's body; true when it ended within the
 * limits. A refusal answered while the client is still sending and then closed reaches the
 * client as a reset (its unsent bytes meet a closed socket) instead of the answer: in the
 * fuzz bench, 5 MB bodies refused before they were read got no answer at all (EPIPE). A body
 * read to its end leaves the connection fit for the next request.
 */
export async function discardBody(request: Request, limits: DiscardLimits): Promise<boolean> {
  if (!request.body) return true;
  if (request.body.locked) return false;
  const reader = request.body.getReader();
  const giveUpAt = performance.now() + limits.totalMs;
  let timer: NodeJS.Timeout | undefined;
  let total = 0;
  try {
    for (;;) {
      const wait = Math.min(limits.idleMs, giveUpAt - performance.now());
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), Math.max(0, wait));
      });
      const next = await Promise.race([reader.read(), late]);
      clearTimeout(timer);
      if (next === 'late') return false;
      if (next.done) return true;
      total += next.value.byteLength;
      if (total > limits.maxBytes) return false;
    }
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

function tooLarge(maxBytes: number) {
  return new BodyError('too_large', `the request body exceeds the limit of ${maxBytes} bytes (after decompression)`);
}
