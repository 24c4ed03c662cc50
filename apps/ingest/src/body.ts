import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';

const gunzip = promisify(gunzipCallback);

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
  let inflated: Uint8Array;
  try {
    inflated = await gunzip(raw, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge(maxBytes);
    throw new BodyError('bad_encoding', `the body is not valid gzip: ${(err as Error).message}`);
  }
  hold(inflated.byteLength);
  return inflated;
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
        await reader.cancel().catch(() => {});
        throw err;
      }
      held = total;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

function tooLarge(maxBytes: number) {
  return new BodyError('too_large', `the request body exceeds the limit of ${maxBytes} bytes (after decompression)`);
}
