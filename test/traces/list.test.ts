import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../support/service.ts';
import { readJson, type Page, type TraceRecord } from '../support/api-types.ts';

// Traces spread so that start-ordered pages cross the list's probe windows (an hour, then
// 8 and 64 hours, then the whole window): minutes, hours and days apart, with ties.
let svc: TestService;
const HOUR = 3_600_000;
const now = Date.now();
const offsets = [
  ...Array.from({ length: 5 }, (_, i) => i * 60_000), // the last minutes
  30 * 60_000, 30 * 60_000, 30 * 60_000, // three ties
  ...Array.from({ length: 6 }, (_, i) => (2 + i) * HOUR),
  ...Array.from({ length: 6 }, (_, i) => (20 + i * 7) * HOUR),
  ...Array.from({ length: 4 }, (_, i) => (100 + i * 15) * HOUR),
];
const traces = offsets.map((offset, i) => ({ id: (i + 1).toString(16).padStart(32, '0'), start: now - 120_000 - offset, cost: (i * 37) % 11 }));

beforeAll(async () => {
  svc = await startTestService();
  const spans = traces.map((t) => ({
    traceId: t.id,
    spanId: '0000000000000001',
    name: 'run',
    startTimeUnixNano: String(t.start * 1e6),
    endTimeUnixNano: String((t.start + 50) * 1e6),
    attributes: [{ key: 'gen_ai.usage.cost', value: { doubleValue: t.cost } }],
  }));
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] }),
  });
  expect(res.status).toBe(200);
  await eventually(async () => {
    const body = await readJson<Page<TraceRecord>>(await svc.api('/api/v1/traces?limit=500'));
    return body.data.length === traces.length ? true : undefined;
  });
});
afterAll(async () => {
  await svc?.stop();
});

async function walk(query: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await svc.api(`/api/v1/traces?limit=4&${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const body = await readJson<Page<TraceRecord>>(res);
    expect(body.data.length).toBeLessThanOrEqual(4);
    ids.push(...body.data.map((t) => t.traceId));
    cursor = body.nextCursor;
  } while (cursor);
  return ids;
}

describe('trace list pages across time', () => {
  const byStart = (dir: 1 | -1) =>
    [...traces].sort((a, b) => dir * (a.start - b.start) || dir * a.id.localeCompare(b.id)).map((t) => t.id);

  it('walks every trace once, newest first, across hours and days', async () => {
    expect(await walk('sortOrder=desc')).toEqual(byStart(-1));
  });

  it('walks every trace once, oldest first', async () => {
    expect(await walk('sortOrder=asc')).toEqual(byStart(1));
  });

  it('keeps a narrower window exact at both ends', async () => {
    const startTime = new Date(now - 50 * HOUR).toISOString();
    const endTime = new Date(now - 3 * HOUR).toISOString();
    const expected = byStart(-1).filter((id) => {
      const t = traces.find((x) => x.id === id)!;
      return t.start >= now - 50 * HOUR && t.start < now - 3 * HOUR;
    });
    expect(expected.length).toBeGreaterThan(5);
    expect(await walk(`startTime=${startTime}&endTime=${endTime}`)).toEqual(expected);
  });

  it('orders by other fields over the whole window', async () => {
    const expected = [...traces].sort((a, b) => b.cost - a.cost || b.id.localeCompare(a.id)).map((t) => t.id);
    expect(await walk('sortBy=cost&sortOrder=desc')).toEqual(expected);
  });
});
