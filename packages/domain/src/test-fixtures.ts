/** Builders for tests: realistic OTLP spans and a normalize context. Not exported by the package. */
import type { Attributes, OtlpSpan, OtlpTraceExport } from '@aos/otlp';
import { spanRowsFromExport, type NormalizeContext } from './normalize.ts';
import { loadPriceTable } from './prices.ts';
import type { SpanRow } from './span-row.ts';

/** 2025-01-01T00:00:00Z in nanoseconds. */
export const START_NS = '1735689600000000000';
export const START_MS = 1735689600000;
export const RECEIVED_AT_MS = START_MS + 2_000;

/** START_NS plus a number of milliseconds (may be fractional down to ns). */
export function nsAfterStart(ms: number): string {
  return (BigInt(START_NS) + BigInt(Math.round(ms * 1e6))).toString();
}

export function makeSpan(overrides: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    parentSpanId: '',
    traceState: '',
    name: 'span',
    kind: 1,
    startTimeUnixNano: START_NS,
    endTimeUnixNano: nsAfterStart(1500),
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    status: { code: 0, message: '' },
    ...overrides,
  };
}

export function makeExport(
  spans: OtlpSpan[],
  resourceAttributes: Attributes = { 'service.name': 'support-agent' },
  scope = { name: 'test-scope', version: '1.0.0' },
): OtlpTraceExport {
  return { resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ scope, spans }] }] };
}

const sharedPrices = loadPriceTable();

export function makeContext(overrides: Partial<NormalizeContext> = {}): NormalizeContext {
  return { projectId: 'proj-1', receivedAtMs: RECEIVED_AT_MS, prices: sharedPrices, maxValueBytes: 64 * 1024, ...overrides };
}

/** Normalizes a single span and returns its row. */
export function rowOf(
  span: OtlpSpan,
  options: { resource?: Attributes; scope?: { name: string; version: string }; context?: Partial<NormalizeContext> } = {},
): SpanRow {
  const rows = spanRowsFromExport(makeExport([span], options.resource, options.scope), makeContext(options.context));
  const row = rows[0];
  if (rows.length !== 1 || row === undefined) throw new Error(`expected one row, got ${rows.length}`);
  return row;
}
