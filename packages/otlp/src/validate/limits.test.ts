import { describe, expect, it } from 'vitest';
import { describeCuts, limitSpans, type SpanLimits } from './limits.ts';
import { readExport } from '../read-export.ts';
import type { AttributeValue, OtlpSpan, OtlpTraceExport } from '../types.ts';

const LIMITS: SpanLimits = { maxAttributes: 3, maxEvents: 2, maxLinks: 1, maxValueLength: 5, maxValueDepth: 2 };

let nextSpan = 1;
function span(overrides: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: (nextSpan++).toString(16).padStart(16, '0'),
    parentSpanId: '',
    traceState: '',
    name: 'op',
    kind: 1,
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000000000000100',
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    status: { code: 0, message: '' },
    ...overrides,
  };
}

function exportOf(...spans: OtlpSpan[]): OtlpTraceExport {
  return { resourceSpans: [{ resource: { attributes: { 'service.name': 'svc' } }, scopeSpans: [{ scope: { name: 's', version: '' }, spans }] }] };
}

const event = (name: string) => ({ timeUnixNano: '1700000000000000050', name, attributes: {} });
const link = (n: number) => ({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: n.toString(16).padStart(16, '0'), traceState: '', attributes: {} });

describe('limitSpans', () => {
  it('leaves a span within the limits as it was and counts nothing', () => {
    const within = span({ attributes: { a: 'short', b: [1, [2]], c: { k: 'v' } }, events: [event('e')], links: [link(1)] });
    const copy = structuredClone(within);
    const cuts = limitSpans(exportOf(within), LIMITS);
    expect(within).toEqual(copy);
    expect(cuts).toEqual({ spans: 0, attributes: 0, events: 0, links: 0, values: 0, nested: 0 });
    expect(describeCuts(cuts, LIMITS)).toBe('');
  });

  it('keeps the first attributes, events and links and adds what it drops to the dropped counts', () => {
    const s = span({
      attributes: { a: 1, b: 2, c: 3, d: 4, e: 5 },
      droppedAttributesCount: 1,
      events: [event('e1'), event('e2'), event('e3')],
      droppedEventsCount: 2,
      links: [link(1), link(2), link(3)],
    });
    const cuts = limitSpans(exportOf(s, span()), LIMITS);
    expect(s.attributes).toEqual({ a: 1, b: 2, c: 3 });
    expect(s.droppedAttributesCount).toBe(3);
    expect(s.events.map((e) => e.name)).toEqual(['e1', 'e2']);
    expect(s.droppedEventsCount).toBe(3);
    expect(s.links).toHaveLength(1);
    expect(cuts).toEqual({ spans: 1, attributes: 2, events: 1, links: 2, values: 0, nested: 0 });
    expect(describeCuts(cuts, LIMITS)).toBe(
      'cut 1 spans to the ingest limits: 2 attributes past 3 per span, event, link or resource, 1 events past 2 per span, 2 links past 1 per span',
    );
  });

  it('shortens long strings anywhere in a value, and names, event names and status messages', () => {
    const s = span({
      name: 'a-long-name',
      status: { code: 2, message: 'went wrong' },
      attributes: { text: 'abcdefgh', list: ['123456', 'ok'], map: { k: 'vvvvvvv' } },
      events: [{ ...event('exception'), attributes: { 'exception.message': 'boom boom' } }],
    });
    const cuts = limitSpans(exportOf(s), LIMITS);
    expect(s.name).toBe('a-lon');
    expect(s.status.message).toBe('went ');
    expect(s.attributes).toEqual({ text: 'abcde', list: ['12345', 'ok'], map: { k: 'vvvvv' } });
    expect(s.events[0]!.name).toBe('excep');
    expect(s.events[0]!.attributes).toEqual({ 'exception.message': 'boom ' });
    expect(cuts.values).toBe(7);
  });

  it('keeps a value nested past the depth limit as its JSON text', () => {
    const deep: AttributeValue = [1, [2, [3, [4]]]];
    const s = span({ attributes: { deep, map: { a: { b: { c: 1 } } } } });
    const cuts = limitSpans(exportOf(s), { ...LIMITS, maxValueLength: 100 });
    expect(s.attributes).toEqual({ deep: [1, [2, '[3,[4]]']], map: { a: { b: '{"c":1}' } } });
    expect(cuts.nested).toBe(2);
  });

  it('limits resource, event and link attributes too, without touching span dropped counts for them', () => {
    const req = exportOf(span({ events: [{ ...event('e'), attributes: { a: 1, b: 2, c: 3, d: 4 } }], links: [{ ...link(1), attributes: { a: 1, b: 2, c: 3, d: 4 } }] }));
    req.resourceSpans[0]!.resource.attributes = { a: 1, b: 2, c: 3, d: 4, e: 5 };
    const cuts = limitSpans(req, LIMITS);
    const only = req.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    expect(Object.keys(req.resourceSpans[0]!.resource.attributes)).toEqual(['a', 'b', 'c']);
    expect(Object.keys(only.events[0]!.attributes)).toEqual(['a', 'b', 'c']);
    expect(Object.keys(only.links[0]!.attributes)).toEqual(['a', 'b', 'c']);
    expect(only.droppedAttributesCount).toBe(0);
    expect(cuts.attributes).toBe(4);
  });
});

describe('readExport', () => {
  it('reports rejected spans and cuts in one partial-success message', () => {
    const attributes = ['a', 'b', 'c', 'd'].map((key) => ({ key, value: { intValue: '1' } }));
    const otlpSpan = (spanId: string, name: string) => ({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId,
      name,
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000000000100',
      attributes,
    });
    const body = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [otlpSpan('00f067aa0ba902b7', 'ok'), otlpSpan('00f067aa0ba902b8', '')] }] }] });
    const result = readExport(new TextEncoder().encode(body), 'json', { nowUnixNano: 1_700_000_100_000_000_000n, limits: LIMITS });
    expect(result).toMatchObject({ ok: true, acceptedSpans: 1, rejectedSpans: 1 });
    expect(result.ok && result.errorMessage).toMatch(/^rejected 1 of 2 spans: 1 with an empty name .*; cut 1 spans to the ingest limits: 1 attributes past 3/);
  });

  it('answers a body that cannot be decoded as a failure with the decoder message', () => {
    const result = readExport(new Uint8Array([0xff, 0xff]), 'protobuf', { nowUnixNano: 0n, limits: LIMITS });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/protobuf/i);
  });
});
