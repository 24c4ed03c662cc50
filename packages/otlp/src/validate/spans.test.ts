import { describe, expect, it } from 'vitest';
import { partitionValidSpans } from './spans.ts';
import type { OtlpSpan, OtlpTraceExport } from '../types.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const NOW = 1_700_000_100_000_000_000n;

let nextSpan = 1;
function span(overrides: Partial<OtlpSpan> = {}): OtlpSpan {
  return {
    traceId: TRACE_ID,
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

function exportOf(...groups: OtlpSpan[][][]): OtlpTraceExport {
  return {
    resourceSpans: groups.map((scopes, r) => ({
      resource: { attributes: { 'service.name': `svc-${r}` } },
      scopeSpans: scopes.map((spans, s) => ({ scope: { name: `scope-${s}`, version: '' }, spans })),
    })),
  };
}

const partition = (req: OtlpTraceExport) => partitionValidSpans(req, { nowUnixNano: NOW });

describe('partitionValidSpans', () => {
  it('accepts a valid export unchanged', () => {
    const req = exportOf([[span(), span({ parentSpanId: 'b7ad6b7169203331', startTimeUnixNano: '5', endTimeUnixNano: '5' })]]);
    const result = partition(req);
    expect(result).toEqual({ accepted: req, acceptedSpans: 2, rejectedSpans: 0, errorMessage: '' });
    expect(result.accepted.resourceSpans[0]!.scopeSpans[0]!.spans[0]).toBe(req.resourceSpans[0]!.scopeSpans[0]!.spans[0]);
  });

  it('accepts an empty export', () => {
    expect(partition({ resourceSpans: [] })).toEqual({ accepted: { resourceSpans: [] }, acceptedSpans: 0, rejectedSpans: 0, errorMessage: '' });
  });

  const rejections: [string, Partial<OtlpSpan>, string][] = [
    ['a short traceId', { traceId: 'abc' }, 'with an invalid traceId (first: trace "abc"/span 0000…)'],
    ['a non-hex traceId', { traceId: 'z'.repeat(32) }, 'with an invalid traceId'],
    ['an uppercase traceId', { traceId: TRACE_ID.toUpperCase() }, 'with an invalid traceId'],
    ['an all-zero traceId', { traceId: '0'.repeat(32) }, 'with an invalid traceId'],
    ['an empty spanId', { spanId: '' }, 'with an invalid spanId (first: trace 4bf9…/span "")'],
    ['a 32-char spanId', { spanId: TRACE_ID }, 'with an invalid spanId'],
    ['an all-zero spanId', { spanId: '0'.repeat(16) }, 'with an invalid spanId'],
    ['a bad parentSpanId', { parentSpanId: 'xyz' }, 'with an invalid parentSpanId'],
    ['an empty name', { name: '' }, 'with an empty name'],
    ['a zero start time', { startTimeUnixNano: '0', endTimeUnixNano: '0' }, 'without a start time'],
    ['end before start', { startTimeUnixNano: '1700000000000000100', endTimeUnixNano: '999999999999999999' }, 'with end before start'],
  ];
  it.each(rejections)('rejects a span with %s', (_, overrides, reason) => {
    const bad = span(overrides);
    const result = partition(exportOf([[span(), bad]]));
    expect(result.acceptedSpans).toBe(1);
    expect(result.rejectedSpans).toBe(1);
    expect(result.accepted.resourceSpans[0]!.scopeSpans[0]!.spans).not.toContain(bad);
    expect(result.errorMessage).toMatch(/^rejected 1 of 2 spans: 1 /);
    expect(result.errorMessage).toContain(reason);
  });

  it('treats an all-zero parentSpanId as a root span', () => {
    const result = partition(exportOf([[span({ parentSpanId: '0000000000000000' })]]));
    expect(result.rejectedSpans).toBe(0);
    expect(result.accepted.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.parentSpanId).toBe('');
  });

  it('drops scope and resource groups left empty and keeps the rest in order', () => {
    const keep = [span({ name: 'a' }), span({ name: 'b' }), span({ name: 'c' })];
    const req = exportOf(
      [[span({ name: '' })], [keep[0]!, span({ spanId: 'zz' }), keep[1]!]],
      [[span({ traceId: '' })]],
      [[], [keep[2]!]],
    );
    const result = partition(req);
    expect(result.acceptedSpans).toBe(3);
    expect(result.rejectedSpans).toBe(3);
    expect(result.accepted).toEqual({
      resourceSpans: [
        { resource: { attributes: { 'service.name': 'svc-0' } }, scopeSpans: [{ scope: { name: 'scope-1', version: '' }, spans: [keep[0], keep[1]] }] },
        { resource: { attributes: { 'service.name': 'svc-2' } }, scopeSpans: [{ scope: { name: 'scope-1', version: '' }, spans: [keep[2]] }] },
      ],
    });
    // The input is not modified.
    expect(req.resourceSpans).toHaveLength(3);
    expect(req.resourceSpans[0]!.scopeSpans[1]!.spans).toHaveLength(3);
  });

  it('summarizes rejections by reason, in a fixed order, with the first offender of each', () => {
    const spans = [
      ...Array.from({ length: 995 }, () => span()),
      span({ startTimeUnixNano: '20', endTimeUnixNano: '10', name: 'late' }),
      span({ spanId: 'zz' }),
      span({ spanId: '' }),
      span({ traceId: 'nothex', spanId: 'zz' }),
      span({ name: '' }),
    ];
    const result = partition(exportOf([spans]));
    expect(result.rejectedSpans).toBe(5);
    expect(result.acceptedSpans).toBe(995);
    expect(result.errorMessage).toBe(
      'rejected 5 of 1000 spans: ' +
        '1 with an invalid traceId (first: trace "nothex"/span "zz"), ' +
        '2 with an invalid spanId (first: trace 4bf9…/span "zz"), ' +
        `1 with an empty name (first: trace 4bf9…/span ${spans[999]!.spanId.slice(0, 4)}…), ` +
        `1 with end before start (first: trace 4bf9…/span ${spans[995]!.spanId.slice(0, 4)}… "late" start 20 end 10)`,
    );
  });

  it('truncates long invalid ids in the message', () => {
    const result = partition(exportOf([[span({ spanId: 'x'.repeat(500) })]]));
    expect(result.errorMessage).toBe(`rejected 1 of 1 spans: 1 with an invalid spanId (first: trace 4bf9…/span "${'x'.repeat(40)}…")`);
  });
});
