import { describe, expect, it } from 'vitest';
import { loadPriceTable } from '@aos/domain';
import { compilePolicy, maskingHashKey, parsePolicy } from '@aos/masking';
import { createPolicyCache, maskingSourceOf } from './masking-source.ts';
import { readSpanRows, type SpanRowsInput } from './span-rows.ts';

const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);
const NOW_MS = 1_700_000_000_000;

function span(traceId: string, spanId: string, attributes: Array<{ key: string; value: { stringValue: string } }>) {
  return { traceId, spanId, name: 'chat', startTimeUnixNano: String((NOW_MS - 1000) * 1e6), endTimeUnixNano: String(NOW_MS * 1e6), attributes };
}

function input(spans: unknown[]): SpanRowsInput {
  const body = { resourceSpans: [{ resource: { attributes: [{ key: 'deployment.id', value: { stringValue: '12' } }] }, scopeSpans: [{ spans }] }] };
  return {
    body: new TextEncoder().encode(JSON.stringify(body)),
    encoding: 'json',
    limits: { maxAttributes: 128, maxEvents: 128, maxLinks: 128, maxValueLength: 1 << 20, maxValueDepth: 16 },
    projectId: 'p1',
    receivedAtMs: NOW_MS,
    dimensionKeys: [],
    maxValueBytes: 1 << 16,
  };
}

const prices = loadPriceTable();
const policy = parsePolicy({ rules: [{ name: 'emails', detector: 'email' }] });
const hashKey = maskingHashKey('secret', 'p1');

describe('readSpanRows', () => {
  it('turns an export into encoded rows and what the writer needs after the insert', () => {
    const result = readSpanRows(
      input([span(TRACE_A, '1'.repeat(16), [{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } }]), span(TRACE_B, '2'.repeat(16), [])]),
      null,
      prices,
    );
    if (!result.ok) throw new Error(result.message);
    expect(result).toMatchObject({ acceptedSpans: 2, rejectedSpans: 0, maskedSpans: 0, outputHits: [] });
    expect(result.batch).toMatchObject({ format: 'RowBinary', rows: 2, deploymentIds: [12], traceIds: [TRACE_A, TRACE_B], telemetryScores: [] });
    // RowBinary: each trace id once per row, the model as a string (its length, then its bytes).
    const rows = Buffer.from(result.batch!.chunk).toString('latin1');
    expect(rows.split(TRACE_A)).toHaveLength(2);
    expect(rows.split(TRACE_B)).toHaveLength(2);
    expect(rows).toContain('\u0006gpt-4o');
  });

  it('masks before it encodes: no raw value in the rows, the rule on the row, output hits for the findings', () => {
    const email = 'jane.doe@example.com';
    const result = readSpanRows(
      input([span(TRACE_A, '1'.repeat(16), [{ key: 'input.value', value: { stringValue: `mail ${email}` } }, { key: 'output.value', value: { stringValue: `to ${email}` } }])]),
      compilePolicy(policy, { hashKey }),
      prices,
    );
    if (!result.ok) throw new Error(result.message);
    expect(Buffer.from(result.batch!.chunk).toString()).not.toContain(email);
    expect(Buffer.from(result.batch!.chunk).toString()).toContain('emails');
    expect(result.maskedSpans).toBe(1);
    expect(result.outputHits).toEqual([{ traceId: TRACE_A, rules: ['emails'] }]);
  });

  it('answers a body that cannot be decoded as a failure, and one with no span accepted without rows', () => {
    const broken = { ...input([]), body: new TextEncoder().encode('{"resourceSpans": 3}') };
    expect(readSpanRows(broken, null, prices)).toMatchObject({ ok: false });
    expect(readSpanRows(input([]), null, prices)).toMatchObject({ ok: true, acceptedSpans: 0, batch: null });
  });
});

describe('masking policies on decode threads', () => {
  it('compiles each version once; a changed policy or key is a new version', () => {
    const cache = createPolicyCache();
    const source = maskingSourceOf(policy, hashKey);
    expect(maskingSourceOf(parsePolicy({ rules: [{ name: 'emails', detector: 'email' }] }), hashKey).version).toBe(source.version);
    expect(maskingSourceOf(policy, maskingHashKey('secret', 'p2')).version).not.toBe(source.version);
    expect(maskingSourceOf(parsePolicy({ rules: [{ name: 'mails', detector: 'email' }] }), hashKey).version).not.toBe(source.version);
    const first = cache(source);
    expect(cache({ ...source })).toBe(first);
    expect(cache(maskingSourceOf(policy, maskingHashKey('secret', 'p2')))).not.toBe(first);
  });
});
