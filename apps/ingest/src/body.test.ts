import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyError, discardBody, readBody } from './body.ts';

const MiB = 1024 * 1024;

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request('http://localhost/v1/traces', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

/** A lazy stream: a chunk is produced only when the reader asks for one. */
function stream(chunks: Uint8Array[], onPull?: () => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream(
    {
      pull(controller) {
        onPull?.();
        const chunk = chunks[i++];
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

async function failure(p: Promise<unknown>): Promise<BodyError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BodyError);
  return err as BodyError;
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe('readBody', () => {
  it('returns a plain body under the limit', async () => {
    expect(Buffer.from(await readBody(post('hello'), 5)).toString()).toBe('hello');
  });

  it('refuses a plain body over the limit as too_large', async () => {
    expect((await failure(readBody(post('hello!'), 5))).kind).toBe('too_large');
  });

  it('refuses a declared content-length over the limit before reading', async () => {
    let pulls = 0;
    const req = post(stream([bytes('x')], () => pulls++), { 'content-length': '2000' });
    expect((await failure(readBody(req, 1000))).kind).toBe('too_large');
    expect(pulls).toBe(0);
  });

  it('stops reading a stream once it passes the limit', async () => {
    let pulls = 0;
    const chunks = Array.from({ length: 10 }, () => new Uint8Array(100));
    const err = await failure(readBody(post(stream(chunks, () => pulls++)), 250));
    expect(err.kind).toBe('too_large');
    expect(pulls).toBeLessThan(10);
  });

  it('inflates a gzip body', async () => {
    const text = 'span data '.repeat(1000);
    const body = await readBody(post(gzipSync(text), { 'content-encoding': 'gzip' }), MiB);
    expect(Buffer.from(body).toString()).toBe(text);
  });

  it('accepts the encoding name in any case and with spaces', async () => {
    const body = await readBody(post(gzipSync('abc'), { 'content-encoding': ' GZip ' }), 100);
    expect(Buffer.from(body).toString()).toBe('abc');
  });

  it('measures the limit after decompression', async () => {
    const gz = gzipSync(Buffer.alloc(2000, 'a'));
    expect(gz.byteLength).toBeLessThan(1000);
    expect((await failure(readBody(post(gz, { 'content-encoding': 'gzip' }), 1000))).kind).toBe('too_large');
  });

  it('refuses a gzip bomb as too_large', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * MiB));
    expect(bomb.byteLength).toBeLessThan(MiB);
    expect((await failure(readBody(post(bomb, { 'content-encoding': 'gzip' }), MiB))).kind).toBe('too_large');
  });

  it('refuses a gzip body whose trailer declares more than the limit without inflating any of it', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * MiB));
    const held: number[] = [];
    const req = post(bomb, { 'content-encoding': 'gzip', 'content-length': String(bomb.byteLength) });
    expect((await failure(readBody(req, MiB, (n) => held.push(n)))).kind).toBe('too_large');
    // The compressed bytes only: not one inflated chunk was kept.
    expect(held.reduce((a, b) => a + b, 0)).toBe(bomb.byteLength);
  });

  it('still stops a bomb whose trailer understates its size at the limit while inflating', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * MiB));
    bomb.writeUInt32LE(100, bomb.byteLength - 4);
    expect((await failure(readBody(post(bomb, { 'content-encoding': 'gzip' }), MiB))).kind).toBe('too_large');
  });

  it('refuses a body that is not gzip as bad_encoding', async () => {
    const req = post('not gzip at all', { 'content-encoding': 'gzip' });
    expect((await failure(readBody(req, 100))).kind).toBe('bad_encoding');
  });

  it('refuses truncated gzip as bad_encoding', async () => {
    const gz = gzipSync('some text that compresses');
    const req = post(gz.subarray(0, gz.byteLength - 8), { 'content-encoding': 'gzip' });
    expect((await failure(readBody(req, 100))).kind).toBe('bad_encoding');
  });

  it('refuses an unsupported content-encoding', async () => {
    const err = await failure(readBody(post('x', { 'content-encoding': 'br' }), 100));
    expect(err.kind).toBe('unsupported_encoding');
    expect(err.message).toContain('br');
  });

  it('treats identity as no encoding', async () => {
    expect(Buffer.from(await readBody(post('abc', { 'content-encoding': 'identity' }), 100)).toString()).toBe('abc');
  });

  it('returns an empty array for an empty body', async () => {
    expect(await readBody(post(null), 100)).toEqual(new Uint8Array(0));
    expect(await readBody(post(''), 100)).toHaveLength(0);
  });

  it('assembles a body sent in several chunks', async () => {
    const body = await readBody(post(stream([bytes('ab'), bytes('cde'), bytes(''), bytes('f')])), 6);
    expect(Buffer.from(body).toString()).toBe('abcdef');
  });

  it('inflates a gzip body sent in several chunks', async () => {
    const gz = gzipSync('chunked and compressed');
    const chunks = [gz.subarray(0, 5), gz.subarray(5, 12), gz.subarray(12)];
    const body = await readBody(post(stream(chunks), { 'content-encoding': 'gzip' }), 100);
    expect(Buffer.from(body).toString()).toBe('chunked and compressed');
  });

  it('tells `hold` every byte it keeps, declared, read and inflated, and stops inflating when `hold` refuses', async () => {
    const held: number[] = [];
    const gz = gzipSync(Buffer.alloc(10_000, 'a'));
    const body = await readBody(post(gz, { 'content-encoding': 'gzip', 'content-length': String(gz.byteLength) }), MiB, (n) => held.push(n));
    expect(body).toHaveLength(10_000);
    expect(held[0]).toBe(gz.byteLength);
    expect(held.slice(1).reduce((a, b) => a + b, 0)).toBe(10_000);

    // 64 MiB of zeros: refused by the budget after its first inflated chunks, long before the body limit.
    let inflated = 0;
    const bomb = gzipSync(Buffer.alloc(64 * MiB));
    const refusal = new Error('over budget');
    const read = readBody(post(bomb, { 'content-encoding': 'gzip' }), 128 * MiB, (n) => {
      inflated += n;
      if (inflated > bomb.byteLength + MiB) throw refusal;
    });
    await expect(read).rejects.toBe(refusal);
    expect(inflated).toBeLessThanOrEqual(bomb.byteLength + 2 * MiB);
  });
});

describe('discardBody', () => {
  it('reads a refused body to its end, also the rest of one refused mid-read', async () => {
    let pulls = 0;
    expect(await discardBody(post(stream([bytes('a'), bytes('b'), bytes('c')], () => pulls++)), { maxBytes: MiB, idleMs: 1000, totalMs: 1000 })).toBe(true);
    expect(pulls).toBe(4);

    // `hold` refused the second chunk: readBody let go of the stream, and the rest is read here.
    pulls = 0;
    const request = post(stream([bytes('aaa'), bytes('bbb'), bytes('ccc')], () => pulls++));
    const refusal = new Error('over budget');
    let held = 0;
    await expect(readBody(request, MiB, (n) => { held += n; if (held > 3) throw refusal; })).rejects.toBe(refusal);
    expect(await discardBody(request, { maxBytes: MiB, idleMs: 1000, totalMs: 1000 })).toBe(true);
    expect(pulls).toBe(4);
  });

  it('gives up on a body that stalls, keeps trickling past its time, or runs past the limit', async () => {
    const stalled = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(bytes('first')) });
    let started = performance.now();
    expect(await discardBody(post(stalled), { maxBytes: MiB, idleMs: 100, totalMs: 5000 })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);

    // A byte every 50 ms never stalls for 100 ms, and is given up at 300 ms in all.
    const trickle = new ReadableStream<Uint8Array>({ pull: (c) => new Promise((r) => setTimeout(r, 50)).then(() => c.enqueue(bytes('x'))) }, { highWaterMark: 0 });
    started = performance.now();
    expect(await discardBody(post(trickle), { maxBytes: MiB, idleMs: 100, totalMs: 300 })).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(performance.now() - started).toBeLessThan(1500);

    expect(await discardBody(post(stream([new Uint8Array(MiB), new Uint8Array(MiB)])), { maxBytes: MiB, idleMs: 1000, totalMs: 1000 })).toBe(false);
  });
});
