import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { readExport } from '@aos/otlp';
import { ingestSettings } from '@aos/config';
import { badAnswers, fuzzBodies, sendFuzz, widestJsonBody } from '../support/otlp-fuzz.ts';
import { startNormalExport } from '../support/normal-export.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

interface SpanNode {
  spanId: string;
  children?: SpanNode[];
}

function spanIdsOf(nodes: SpanNode[]): string[] {
  return nodes.flatMap((n) => [n.spanId, ...spanIdsOf(n.children ?? [])]);
}

describe('pathological bodies next to a normal export', () => {
  it('answer every body within 2 s (scaled to how fast the machine is) without a 5xx other than 503 with Retry-After, and the normal export is acked and stored exactly once', async () => {
    const next = fuzzBodies(16);
    // The bound is 2 s on a machine as fast as the one the issue measured; when this shared
    // machine decodes the costliest body more slowly than that right now (other suites running),
    // the bound grows with it: a few decodes' time, never a queue of them.
    const wide = widestJsonBody();
    const started = performance.now();
    readExport(wide, 'json', { nowUnixNano: 0n, limits: ingestSettings({}).limits });
    const boundMs = Math.max(2000, 6 * (performance.now() - started));

    const normal = startNormalExport(svc.url, svc.key);
    const answers = await sendFuzz({ url: svc.url, key: svc.key, next, count: 40, concurrency: 2 });
    await normal.finish();

    expect(badAnswers(answers)).toEqual([]);
    const slow = answers.filter((a) => a.ms > boundMs);
    expect(slow).toEqual([]);
    // The fuzz did reach the decoders: most bodies are refused as malformed or too large, the
    // large well-formed ones accepted after being cut to the limits.
    const statuses = new Set(answers.map((a) => a.status));
    expect(statuses).toContain(400);
    expect(statuses).toContain(200);

    expect(normal.failures).toBe(0);
    expect(normal.acked.size).toBeGreaterThan(5);
    // The stock exporter honours a 503's Retry-After (5 s by default) and sends again: a CI run
    // acked one export after 5,021 ms that way. One refusal honoured is in the bound, a queue of them is not.
    expect(Math.max(...normal.ackMs)).toBeLessThan(boundMs + ingestSettings({}).retryAfterSeconds * 1000);
    for (const [traceId, spanIds] of normal.acked) {
      const stored = await eventually(async () => {
        const res = await svc.api(`/api/v1/traces/${traceId}`);
        if (res.status !== 200) return undefined;
        const ids = spanIdsOf(((await res.json()) as { spans: SpanNode[] }).spans);
        return ids.length >= spanIds.length ? ids : undefined;
      });
      expect(stored.sort()).toEqual([...spanIds].sort());
    }
  }, 180_000);
});
