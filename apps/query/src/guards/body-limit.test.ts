import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { apiErrorHandler } from '@aos/http';
import { silentLogger } from '@aos/log';
import { bodyLimitGuard } from './body-limit.ts';

const LIMIT = 1000;

/** An app whose route reports how much body it was given, behind the guard. */
function guardedApp() {
  const app = new Hono();
  app.onError(apiErrorHandler(silentLogger));
  app.use('*', bodyLimitGuard(LIMIT));
  app.all('/echo', async (c) => c.json({ length: (await c.req.text()).length }));
  return app;
}

/** A body sent without Content-Length, in chunks of `chunk` bytes, counting what was pulled from it. */
function streamed(total: number, chunk = 100) {
  const pulled = { bytes: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.bytes >= total) return controller.close();
      const size = Math.min(chunk, total - pulled.bytes);
      pulled.bytes += size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  return { body, pulled };
}

async function refusal(res: Response) {
  expect(res.status).toBe(413);
  const { error } = (await res.json()) as { error: { code: string; message: string; details: unknown } };
  expect(error.code).toBe('payload_too_large');
  expect(error.message).toBe(`the request body exceeds the limit of ${LIMIT} bytes`);
  expect(error.details).toEqual([{ field: 'body', message: `must be at most ${LIMIT} bytes` }]);
}

describe('bodyLimitGuard', () => {
  it('passes a body within the limit to the route, declared or streamed', async () => {
    const app = guardedApp();
    const declared = await app.request('/echo', { method: 'POST', body: ' '.repeat(LIMIT) });
    expect(await declared.json()).toEqual({ length: LIMIT });
    const { body } = streamed(LIMIT);
    const chunked = await app.request('/echo', { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await chunked.json()).toEqual({ length: LIMIT });
  });

  it('refuses a declared length over the limit before reading the body', async () => {
    const { body, pulled } = streamed(10 * LIMIT);
    const res = await guardedApp().request('/echo', { method: 'POST', body, duplex: 'half', headers: { 'content-length': String(10 * LIMIT) } } as RequestInit);
    await refusal(res);
    // A ReadableStream pulls one chunk ahead of any reader; the guard read none.
    expect(pulled.bytes).toBeLessThanOrEqual(100);
  });

  it('refuses a streamed body as soon as it passes the limit, without reading the rest', async () => {
    const { body, pulled } = streamed(1000 * LIMIT);
    await refusal(await guardedApp().request('/echo', { method: 'PATCH', body, duplex: 'half' } as RequestInit));
    expect(pulled.bytes).toBeLessThan(2 * LIMIT);
  });

  it('refuses a GET declaring a body over the limit', async () => {
    const res = await guardedApp().request('/echo', { method: 'GET', headers: { 'content-length': String(LIMIT + 1) } });
    // Nothing else would stop Node reading the rest.
    expect(res.headers.get('connection')).toBe('close');
    await refusal(res);
    expect((await guardedApp().request('/echo')).status).toBe(200);
  });

  it('closes the connection after answering a GET that streams a body, which Node would otherwise read on', async () => {
    const res = await guardedApp().request('/echo', { method: 'GET', headers: { 'transfer-encoding': 'chunked' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    expect((await guardedApp().request('/echo')).headers.get('connection')).toBeNull();
  });
});
