import { expect } from 'vitest';
import { eventually, type TestService } from './service.ts';

export interface SeedTrace {
  /** Hex trace id (padded to 32 characters). */
  id: string;
  atMs: number;
  durationMs?: number;
  error?: boolean;
  /** Span attributes: strings, integers or doubles (a number with a fraction). */
  attrs?: Record<string, string | number>;
}

/** One OTLP/JSON resourceSpans entry holding a one-span trace. */
export function oneSpanTrace(t: SeedTrace) {
  const value = (v: string | number) =>
    typeof v === 'string' ? { stringValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: 'seed' } }] },
    scopeSpans: [
      {
        spans: [
          {
            traceId: t.id.padStart(32, '0'),
            spanId: '0000000000000001',
            name: 'agent run',
            startTimeUnixNano: String(t.atMs * 1e6),
            endTimeUnixNano: String((t.atMs + (t.durationMs ?? 100)) * 1e6),
            status: { code: t.error ? 2 : 1 },
            attributes: Object.entries(t.attrs ?? {}).map(([key, v]) => ({ key, value: value(v) })),
          },
        ],
      },
    ],
  };
}

/** Sends the traces (as `key`, default the dev key) and waits until all are listed in their window. */
export async function seedTraces(svc: TestService, traces: SeedTrace[], key?: string): Promise<void> {
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: traces.map(oneSpanTrace) }),
    ...(key ? { key } : {}),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const start = new Date(Math.min(...traces.map((t) => t.atMs))).toISOString();
  const end = new Date(Math.max(...traces.map((t) => t.atMs)) + 1).toISOString();
  await eventually(async () => {
    const r = await svc.api(`/api/v1/traces?limit=500&startTime=${start}&endTime=${end}`, key ? { key } : {});
    const ids = new Set(((await r.json()) as { data: Array<{ traceId: string }> }).data.map((x) => x.traceId));
    return traces.every((t) => ids.has(t.id.padStart(32, '0'))) ? true : undefined;
  });
}
