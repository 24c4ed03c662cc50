import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { recordSpans, serializeSpans } from '../support/otel.ts';

const LIMIT = 256 * 1024;
let svc: TestService;
let storedTraceId: string;

beforeAll(async () => {
  svc = await startTestService({ INGEST_MAX_BODY_BYTES: String(LIMIT) });
  // A trace accepted before any bad input: it must survive everything below.
  const spans = recordSpans(5);
  storedTraceId = spans[0]!.spanContext().traceId;
  const res = await post(serializeSpans(spans, 'protobuf'), 'application/x-protobuf');
  expect(res.status).toBe(200);
  await eventually(async () => ((await spanCount(storedTraceId)) === 5 ? true : undefined));
});
afterAll(async () => {
  await svc?.stop();
});

function post(body: Uint8Array | string, contentType: string, headers: Record<string, string> = {}) {
  return svc.api('/api/v1/traces/otlp', { method: 'POST', body: body as string | Uint8Array<ArrayBuffer>, headers: { 'content-type': contentType, ...headers } });
}

async function spanCount(traceId: string): Promise<number> {
  const res = await svc.api(`/api/v1/traces/${traceId}`);
  return res.status === 200 ? ((await res.json()) as any).spanCount : 0;
}

async function expectStatus(res: Response, status: number, messagePart: RegExp) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  // JSON requests get a google.rpc.Status in JSON.
  if (res.headers.get('content-type')?.includes('json')) expect(JSON.parse(text).message).toMatch(messagePart);
}

describe('OTLP ingest refuses bad input with a precise 4xx', () => {
  it('truncated protobuf', async () => {
    const body = serializeSpans(recordSpans(3), 'protobuf');
    for (const cut of [1, 7, Math.floor(body.length / 2), body.length - 1]) {
      const res = await post(body.subarray(0, cut), 'application/x-protobuf');
      expect(res.status, `cut at ${cut}`).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    }
  });

  it('random bytes as protobuf', async () => {
    let refused = 0;
    for (let i = 0; i < 30; i++) {
      const res = await post(randomBytes(64 + i * 13), 'application/x-protobuf');
      // Random bytes are almost always invalid; any that happen to parse carry no valid span.
      expect([200, 400]).toContain(res.status);
      if (res.status === 400) refused++;
      await res.arrayBuffer();
    }
    expect(refused).toBeGreaterThan(20);
  });

  it('malformed and mistyped JSON', async () => {
    await expectStatus(await post('{"resourceSpans": [', 'application/json'), 400, /JSON/i);
    await expectStatus(await post('{"resourceSpans": {"a": 1}}', 'application/json'), 400, /resourceSpans/);
    await expectStatus(
      await post(
        JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 'x', startTimeUnixNano: 'soon', endTimeUnixNano: '2' }] }] }] }),
        'application/json',
      ),
      400,
      /startTimeUnixNano/,
    );
  });

  it('wrong content type and content encoding', async () => {
    await expectStatus(await post('hello', 'text/plain'), 415, /Content-Type/);
    await expectStatus(await post('{}', 'application/json', { 'content-encoding': 'br' }), 415, /Content-Encoding/);
    await expectStatus(await post('not gzip at all', 'application/json', { 'content-encoding': 'gzip' }), 400, /gzip/);
  });

  it('oversized bodies, plain and as a gzip bomb', async () => {
    await expectStatus(await post('x'.repeat(LIMIT + 1), 'application/json'), 413, /limit/);
    // 64 MiB of zeros compress to about 64 KiB: small on the wire, refused once inflated past the limit.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(LIMIT);
    await expectStatus(await post(bomb, 'application/json', { 'content-encoding': 'gzip' }), 413, /limit/);
  });

  it('bad ids and invalid spans are rejected one by one, the rest kept (partialSuccess)', async () => {
    const traceId = 'a1'.repeat(16);
    const good = { traceId, spanId: '0000000000000001', name: 'good', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000' };
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bad-ids' } }] },
          scopeSpans: [
            {
              scope: { name: 's' },
              spans: [
                good,
                { ...good, spanId: 'zz' },
                { ...good, spanId: '0000000000000003', traceId: '00'.repeat(16) },
                { ...good, spanId: '0000000000000004', name: '' },
                { ...good, spanId: '0000000000000005', endTimeUnixNano: '1600000000000000000' },
              ],
            },
          ],
        },
      ],
    };
    const res = await post(JSON.stringify(body), 'application/json');
    expect(res.status).toBe(200);
    const answer = (await res.json()) as any;
    expect(Number(answer.partialSuccess.rejectedSpans)).toBe(4);
    expect(answer.partialSuccess.errorMessage).toMatch(/spanId/);
    expect(answer.partialSuccess.errorMessage).toMatch(/end before start/);
    const kept = await eventually(async () => {
      const r = await svc.api(`/api/v1/traces/${traceId}?projectId=default`);
      return r.status === 200 ? ((await r.json()) as any) : undefined;
    });
    expect(kept.spanCount).toBe(1);
    expect(kept.spans[0].name).toBe('good');
  });

  it('other methods on the OTLP paths are 405 with Allow: POST, not a trace lookup', async () => {
    for (const path of ['/api/v1/traces/otlp', '/api/v1/traces/otlp/v1/traces']) {
      const res = await svc.api(path);
      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(((await res.json()) as any).error.code).toBe('method_not_allowed');
    }
  });

  it('an empty request is a success', async () => {
    const json = await post('{}', 'application/json');
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual({});
    const proto = await post(new Uint8Array(0), 'application/x-protobuf');
    expect(proto.status).toBe(200);
  });

  it('gzip-compressed requests are accepted', async () => {
    const spans = recordSpans(2);
    const res = await post(gzipSync(serializeSpans(spans, 'json')), 'application/json', { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    await eventually(async () => ((await spanCount(spans[0]!.spanContext().traceId)) === 2 ? true : undefined));
  });

  it('kept everything accepted before the bad input', async () => {
    expect(await spanCount(storedTraceId)).toBe(5);
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
