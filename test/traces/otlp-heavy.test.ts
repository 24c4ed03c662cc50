import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '@aos/log';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { stalledHeaders, stalledPost } from '../support/raw-http.ts';

const REQUEST_TIMEOUT_MS = 1500;
/** Node checks for slow requests every 375 ms here; the rest is room for a loaded machine (the default bound is 30 s). */
const CUT_MARGIN_MS = 4000;

/** Every line the service logs, to tell a client that went away from a storage fault. */
const lines: { level: string; msg: string }[] = [];
const recordingLogger: Logger = {
  debug: (msg) => lines.push({ level: 'debug', msg }),
  info: (msg) => lines.push({ level: 'info', msg }),
  warn: (msg) => lines.push({ level: 'warn', msg }),
  error: (msg) => lines.push({ level: 'error', msg }),
  child: () => recordingLogger,
};

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService(
      {
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        // Every body through the decode threads: the thread path end to end.
        INGEST_DECODE_THREAD_MIN_BYTES: '0',
        INGEST_MAX_SPAN_ATTRIBUTES: '10',
        INGEST_MAX_VALUE_LENGTH: '2048',
        LOG_LEVEL: 'debug',
      },
      { logger: recordingLogger },
  );
});
afterAll(async () => {
  await svc?.stop();
});

const otlpHeaders = () => ({ 'x-api-key': svc.key, 'content-type': 'application/x-protobuf' });

function postOtlp(body: Uint8Array | string, contentType: string) {
  return svc.api('/api/v1/traces/otlp', { method: 'POST', body: body as string | Uint8Array<ArrayBuffer>, headers: { 'content-type': contentType } });
}

describe('slow clients', () => {
  it('answers 408 and closes a request whose body trickles past HTTP_REQUEST_TIMEOUT_MS, and logs it as a client abort', async () => {
    lines.length = 0;
    const slow = stalledPost(svc.url, '/api/v1/traces/otlp', otlpHeaders(), 10_000, 100);
    const answer = await slow.answer;
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(answer.ms).toBeLessThan(REQUEST_TIMEOUT_MS + CUT_MARGIN_MS);
    await slow.closed;
    await eventually(async () => (lines.some((l) => l.msg === 'client aborted the export') ? true : undefined), 5000, 'the abort logged');
    expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  it('answers 408 on the query API too', async () => {
    lines.length = 0;
    const slow = stalledPost(svc.url, '/api/v1/score-configs', { 'x-api-key': svc.key, 'content-type': 'application/json' }, 5000, 10);
    const answer = await slow.answer;
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeLessThan(REQUEST_TIMEOUT_MS + CUT_MARGIN_MS);
    await slow.closed;
    await eventually(async () => (lines.some((l) => l.msg === 'request aborted by the client') ? true : undefined), 5000, 'the abort logged');
    expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  it('answers 408 and closes a connection whose headers never end', async () => {
    const { text, ms } = await stalledHeaders(svc.url, '/api/v1/traces');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + CUT_MARGIN_MS);
  });
});

describe('span limits', () => {
  it('cuts attributes and long values, says so in partialSuccess, and flags the span data_dropped', async () => {
    const traceId = 'ab'.repeat(16);
    const spanId = 'cd'.repeat(8);
    const now = BigInt(Date.now()) * 1_000_000n;
    const attributes = Array.from({ length: 50 }, (_, i) => ({ key: `attr.${String(i).padStart(2, '0')}`, value: { intValue: String(i) } }));
    attributes.unshift({ key: 'long.text', value: { stringValue: 'y'.repeat(5000) } } as never);
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'limits-test' } }] },
          scopeSpans: [{ spans: [{ traceId, spanId, name: 'wide', startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1_000_000n), attributes }] }],
        },
      ],
    });
    const res = await postOtlp(body, 'application/json');
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { partialSuccess?: { rejectedSpans?: string; errorMessage: string } };
    expect(answer.partialSuccess?.errorMessage).toBe(
      'cut 1 spans to the ingest limits: 41 attributes past 10 per span, event, link or resource, 1 strings shortened to 2048 characters',
    );
    expect(Number(answer.partialSuccess?.rejectedSpans ?? 0)).toBe(0);

    const detail = await eventually(async () => {
      const r = await svc.api(`/api/v1/traces/${traceId}/spans/${spanId}`);
      return r.status === 200 ? ((await r.json()) as { attributes: Record<string, unknown>; qualityFlags: string[] }) : undefined;
    });
    expect(Object.keys(detail.attributes).filter((k) => k.startsWith('attr.') || k === 'long.text')).toHaveLength(10);
    expect(detail.attributes['long.text']).toBe('y'.repeat(2048));
    expect(detail.qualityFlags).toContain('data_dropped');
  });

  it('answers a malformed body decoded on a thread with the decoder message', async () => {
    const res = await postOtlp(new Uint8Array([0x0a, 0xff, 0xff, 0xff]), 'application/x-protobuf');
    expect(res.status).toBe(400);
    expect(Buffer.from(await res.arrayBuffer()).toString('latin1')).toMatch(/protobuf/i);
  });
});
