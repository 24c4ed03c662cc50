import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '@aos/log';
import { ApiError, apiErrorHandler, useApiErrors } from './errors.ts';

const SECRET = 'connection to 10.0.0.5 failed: password=hunter2';

const app = new Hono();
useApiErrors(app, silentLogger);
app.get('/api-error', () => {
  throw new ApiError('rate_limited', 'slow down', [{ field: 'limit', message: 'too many' }], { 'retry-after': '5' });
});
app.get('/plain-api-error', () => {
  throw new ApiError('not_found', 'trace t1 not found');
});
app.get('/http-exception', () => {
  throw new HTTPException(413, { message: 'body too big' });
});
app.get('/plain', () => {
  throw new Error(SECRET);
});
app.get('/storage-down', () => {
  throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:8123'), { code: 'ECONNREFUSED' });
});

interface ErrorResponse {
  error: { code: string; message: string; details?: unknown[]; requestId: string };
}

async function call(path: string, headers: Record<string, string> = {}) {
  const res = await app.request(path, { headers });
  const text = await res.text();
  return { res, text, body: JSON.parse(text) as ErrorResponse };
}

describe('apiErrorHandler', () => {
  it('answers an ApiError with its status, code, details and headers', async () => {
    const { res, body } = await call('/api-error', { 'x-request-id': 'req-42' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(body).toEqual({
      error: { code: 'rate_limited', message: 'slow down', details: [{ field: 'limit', message: 'too many' }], requestId: 'req-42' },
    });
  });

  it('leaves details out when there are none', async () => {
    const { res, body } = await call('/plain-api-error');
    expect(res.status).toBe(404);
    expect(body.error).not.toHaveProperty('details');
    expect(body.error.code).toBe('not_found');
  });

  it('makes up a request id when none was sent', async () => {
    const [a, b] = await Promise.all([call('/plain-api-error'), call('/plain-api-error')]);
    expect(a.body.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.body.error.requestId).not.toBe(b.body.error.requestId);
  });

  it('maps a Hono HTTPException to the code of its status', async () => {
    const { res, body } = await call('/http-exception', { 'x-request-id': 'r1' });
    expect(res.status).toBe(413);
    expect(body).toEqual({ error: { code: 'payload_too_large', message: 'body too big', requestId: 'r1' } });
  });

  it('answers storage that cannot be reached with a retryable 503', async () => {
    const { res, text, body } = await call('/storage-down');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(body.error.code).toBe('unavailable');
    expect(text).not.toContain('10.0.0.9');
  });

  it('logs a body read that failed because the client went away as a client abort, not as storage unavailable', async () => {
    const logged: string[] = [];
    const logger = { ...silentLogger, info: (msg: string) => logged.push(`info ${msg}`), warn: (msg: string) => logged.push(`warn ${msg}`) };
    const aborting = new Hono();
    aborting.onError(apiErrorHandler(logger));
    // What Node's request stream throws when the socket closes under an unread body.
    aborting.post('/', () => {
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    });
    const controller = new AbortController();
    controller.abort();
    const res = await aborting.request('/', { method: 'POST', signal: controller.signal });
    expect(res.status).toBe(503);
    expect(((await res.json()) as ErrorResponse).error.code).toBe('timeout');
    expect(logged).toEqual(['info request aborted by the client']);
  });

  it('answers an unexpected error with a 500 that hides its message', async () => {
    const { res, text, body } = await call('/plain', { 'x-request-id': 'r2' });
    expect(res.status).toBe(500);
    expect(body.error).toMatchObject({ code: 'internal', requestId: 'r2' });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('10.0.0.5');
  });

  it('logs the unexpected error with its request id', async () => {
    const logged: Array<Record<string, unknown> | undefined> = [];
    const logging = new Hono();
    logging.onError(apiErrorHandler({ ...silentLogger, error: (_msg, fields) => logged.push(fields) }));
    logging.get('/plain', () => {
      throw new Error(SECRET);
    });
    await logging.request('/plain', { headers: { 'x-request-id': 'r3' } });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ requestId: 'r3', path: '/plain', error: expect.objectContaining({ message: SECRET }) });
  });

  it('answers an unknown route with a not_found error', async () => {
    const { res, body } = await call('/nope');
    expect(res.status).toBe(404);
    expect(body.error.code).toBe('not_found');
    expect(body.error.message).toContain('/nope');
  });
});
