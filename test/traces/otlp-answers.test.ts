import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { widestJsonBody } from '../support/otlp-fuzz.ts';
import { startNormalExport } from '../support/normal-export.ts';

/** The one span of the fuzz bodies (test/support/otlp-fuzz.ts). */
const WIDE_TRACE_ID = 'f0'.repeat(16);

let svc: TestService;

beforeAll(async () => {
  // No decode on a thread can end in 1 ms: every body decoded there runs past its time limit.
  svc = await startTestService({ INGEST_DECODE_TIME_LIMIT_MS: '1' });
});
afterAll(async () => {
  await svc?.stop();
});

function postJson(body: Uint8Array, key: string): Promise<Response> {
  return fetch(`${svc.url}/api/v1/traces/otlp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: body as Uint8Array<ArrayBuffer>,
  });
}

describe('every large body gets an answer', () => {
  it('answers a body that decodes past INGEST_DECODE_TIME_LIMIT_MS 503 with Retry-After, queues none of it, and acks the stock exporter beside it', async () => {
    const normal = startNormalExport(svc.url, svc.key);
    const wide = widestJsonBody();
    const answers: Array<{ status: number; retryAfter: string | null; body: { code: number; message: string } }> = [];
    for (let i = 0; i < 3; i++) {
      const res = await postJson(wide, svc.key);
      answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { code: number; message: string } });
    }
    await normal.finish();

    for (const answer of answers) {
      expect([answer.status, answer.retryAfter, answer.body.code]).toEqual([503, '5', 14]);
      expect(answer.body.message).toContain('retry later');
    }
    // The first found a free thread: it was refused for its decode time, not a queue.
    expect(answers[0]!.body.message).toContain('more than 1 ms to decode');

    // The exporter's small batches are decoded in place, without the limit: every one acked and stored.
    expect(normal.failures).toBe(0);
    expect(normal.acked.size).toBeGreaterThan(0);
    for (const traceId of normal.acked.keys()) {
      await eventually(async () => ((await svc.api(`/api/v1/traces/${traceId}`)).status === 200 ? true : undefined));
    }
    // The refused bodies' rows, which their threads went on to make, were not queued: an
    // exporter sending them again would store them twice otherwise.
    expect((await svc.api(`/api/v1/traces/${WIDE_TRACE_ID}`)).status).toBe(404);
  });

  it('answers large bodies refused before they are read, rather than resetting their connections', async () => {
    // 32 MB each, refused at admission (unknown key), four at once: answered as soon as the
    // headers are read, the bodies are still arriving.
    const large = new Uint8Array(32 * 1024 * 1024).fill(0x20);
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        postJson(large, 'not-a-key').then(
          async (res) => ({ status: res.status, connection: res.headers.get('connection'), body: await res.text() }),
          (err: Error & { cause?: { code?: string } }) => ({ status: 0, connection: null, body: err.cause?.code ?? err.message }),
        ),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(Array(4).fill(401));
    expect(outcomes[0]!.body).toContain('API key');

    // A body read to its end before the answer leaves the connection fit for the next request.
    const alone = await postJson(widestJsonBody(), 'not-a-key');
    expect([alone.status, alone.headers.get('connection')]).toEqual([401, 'keep-alive']);
  });
});
