import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';

const gunzip = promisify(gunzipCallback);

export class BodyError extends Error {
  constructor(
    readonly kind: 'too_large' | 'bad_encoding' | 'unsupported_encoding',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a request body, inflating gzip, and refuses more than `maxBytes` measured after
 * decompression. The limit is enforced while reading and while inflating, so neither a
 * huge upload nor a small gzip bomb is ever held in memory whole.
 */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== '') {
    throw new BodyError('unsupported_encoding', `unsupported Content-Encoding ${JSON.stringify(encoding)}: send gzip or none`);
  }
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const raw = await readLimited(request, maxBytes);
  if (encoding !== 'gzip') return raw;
  try {
    return await gunzip(raw, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge(maxBytes);
    throw new BodyError('bad_encoding', `the body is not valid gzip: ${(err as Error).message}`);
  }
}

async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

function tooLarge(maxBytes: number) {
  return new BodyError('too_large', `the request body exceeds the limit of ${maxBytes} bytes (after decompression)`);
}
