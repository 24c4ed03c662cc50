import { describe, expect, it } from 'vitest';
import { spanRowsFromExport } from './normalize.ts';
import { SPAN_QUALITY_FLAGS } from './span-row.ts';
import { makeContext, makeExport, makeSpan, nsAfterStart, RECEIVED_AT_MS, rowOf, START_MS, START_NS } from './test-fixtures.ts';

describe('spanRowsFromExport', () => {
  it('copies identity, timing, kind and status', () => {
    const row = rowOf(
      makeSpan({
        parentSpanId: '00f067aa0ba902b7',
        name: 'handle request',
        kind: 2,
        endTimeUnixNano: nsAfterStart(1234.567891),
        status: { code: 2, message: 'upstream timeout' },
      }),
      { resource: { 'service.name': 'api' }, scope: { name: 'my-lib', version: '2.1.0' } },
    );
    expect(row).toMatchObject({
      project_id: 'proj-1',
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      span_id: 'b7ad6b7169203331',
      parent_span_id: '00f067aa0ba902b7',
      name: 'handle request',
      kind: 'server',
      span_type: 'span',
      start_time: '1735689600.000000000',
      duration_ms: 1234.568, // microsecond precision
      status: 'error',
      status_message: 'upstream timeout',
      service_name: 'api',
      scope_name: 'my-lib',
      scope_version: '2.1.0',
      platform: '',
      cost: 0,
      cost_source: '',
      ingested_at: RECEIVED_AT_MS,
      quality_flags: [],
    });
  });

  it('emits one row per span across resources and scopes', () => {
    const batch = makeExport([makeSpan({ spanId: '1111111111111111' }), makeSpan({ spanId: '2222222222222222' })]);
    batch.resourceSpans.push(...makeExport([makeSpan({ spanId: '3333333333333333' })], { 'service.name': 'other' }).resourceSpans);
    const rows = spanRowsFromExport(batch, makeContext());
    expect(rows.map((r) => [r.span_id, r.service_name])).toEqual([
      ['1111111111111111', 'support-agent'],
      ['2222222222222222', 'support-agent'],
      ['3333333333333333', 'other'],
    ]);
  });

  it('maps resource attributes: environment (current and old key), session, user, platform', () => {
    const current = rowOf(makeSpan(), {
      resource: { 'service.name': 'api', 'deployment.environment.name': 'production', 'deployment.environment': 'old' },
    });
    expect(current.environment).toBe('production');
    expect(current.resource_attributes).toEqual({
      'service.name': 'api',
      'deployment.environment.name': 'production',
      'deployment.environment': 'old',
    });
    const old = rowOf(makeSpan(), {
      resource: { 'deployment.environment': 'staging', 'session.id': 's-1', 'user.id': 'u-1', platform: 'mastra' },
    });
    expect(old).toMatchObject({ environment: 'staging', session_id: 's-1', user_id: 'u-1', platform: 'mastra' });
    // span-level ids win over resource-level ones
    const spanLevel = rowOf(makeSpan({ attributes: { 'session.id': 's-span' } }), { resource: { 'session.id': 's-res' } });
    expect(spanLevel.session_id).toBe('s-span');
  });

  it('serialises events and links with typed attribute values', () => {
    const row = rowOf(
      makeSpan({
        events: [{ name: 'retry', timeUnixNano: nsAfterStart(5), attributes: { attempt: 2, fatal: false, tags: ['a'] } }],
        links: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceState: 'k=v', attributes: { reason: 'batch' } }],
      }),
    );
    expect(JSON.parse(row.events)).toEqual([
      { name: 'retry', timeUnixNano: nsAfterStart(5), attributes: { attempt: 2, fatal: false, tags: ['a'] } },
    ]);
    expect(JSON.parse(row.links)).toEqual([
      { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceState: 'k=v', attributes: { reason: 'batch' } },
    ]);
    expect(rowOf(makeSpan()).events).toBe('[]');
  });

  it('an explicit gen_ai.usage.cost wins over the price table', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 1000,
          'gen_ai.usage.output_tokens': 1000,
          'gen_ai.usage.cost': 0.5,
        },
      }),
    );
    expect(row.cost).toBe(0.5);
    expect(row.cost_source).toBe('explicit');
  });
});

describe('quality flags', () => {
  const llm = { 'gen_ai.operation.name': 'chat' };

  it('flags an unknown model price but still keeps the tokens', () => {
    const row = rowOf(
      makeSpan({
        attributes: { ...llm, 'gen_ai.request.model': 'acme-llm-9', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 },
      }),
    );
    expect(row.quality_flags).toEqual(['unknown_model_price']);
    expect(row).toMatchObject({ cost: 0, cost_source: '', input_tokens: 10, output_tokens: 5 });
  });

  it('flags LLM spans without model or token counts', () => {
    expect(rowOf(makeSpan({ attributes: llm })).quality_flags).toEqual(['missing_token_counts', 'missing_model']);
    const noModel = rowOf(makeSpan({ attributes: { ...llm, 'gen_ai.usage.input_tokens': 3 } }));
    expect(noModel.quality_flags).toEqual(['missing_model', 'unknown_model_price']);
  });

  it('flags a start time more than 5 minutes after receipt', () => {
    const at = (msAfterReceipt: number) => {
      const start = BigInt(RECEIVED_AT_MS + msAfterReceipt) * 1_000_000n;
      return rowOf(makeSpan({ startTimeUnixNano: start.toString(), endTimeUnixNano: (start + 1_000_000n).toString() }));
    };
    expect(at(6 * 60_000).quality_flags).toEqual(['future_timestamp']);
    expect(at(4 * 60_000).quality_flags).toEqual([]);
  });

  it('flags truncation of attributes, input and event values, cutting to maxValueBytes', () => {
    const long = 'ü'.repeat(100); // 200 bytes
    const attr = rowOf(makeSpan({ attributes: { note: long } }), { context: { maxValueBytes: 51 } });
    expect(attr.quality_flags).toEqual(['attribute_truncated']);
    expect(attr.attributes['note']).toBe('ü'.repeat(25));

    const input = rowOf(makeSpan({ attributes: { 'input.value': long } }), { context: { maxValueBytes: 1000 } });
    expect(input.quality_flags).toEqual([]);
    expect(input.input).toBe(long);

    const event = rowOf(makeSpan({ events: [{ name: 'log', timeUnixNano: START_NS, attributes: { body: long } }] }), {
      context: { maxValueBytes: 20 },
    });
    expect(event.quality_flags).toEqual(['attribute_truncated']);
    expect(JSON.parse(event.events)).toEqual([{ name: 'log', timeUnixNano: START_NS, attributes: { body: 'ü'.repeat(10) } }]);

    const resource = rowOf(makeSpan(), { resource: { 'service.name': long }, context: { maxValueBytes: 20 } });
    expect(resource.quality_flags).toEqual(['attribute_truncated']);
  });

  it('flags dropped attributes or events', () => {
    expect(rowOf(makeSpan({ droppedAttributesCount: 3 })).quality_flags).toEqual(['data_dropped']);
    expect(rowOf(makeSpan({ droppedEventsCount: 1 })).quality_flags).toEqual(['data_dropped']);
  });

  it('flags contradicting token counts', () => {
    const row = rowOf(
      makeSpan({
        attributes: {
          ...llm,
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 50,
          'gen_ai.usage.total_tokens': 90,
        },
      }),
    );
    expect(row.quality_flags).toEqual(['inconsistent_token_counts']);
    expect(row.total_tokens).toBe(90);
  });

  it('only emits declared flags', () => {
    const row = rowOf(makeSpan({ attributes: llm, droppedAttributesCount: 1, startTimeUnixNano: `${START_MS + 3_600_000}000000` }));
    for (const flag of row.quality_flags) expect(SPAN_QUALITY_FLAGS).toContain(flag);
    expect(row.quality_flags).toHaveLength(4);
  });

  it('rejects a non-positive size limit', () => {
    expect(() => spanRowsFromExport(makeExport([makeSpan()]), makeContext({ maxValueBytes: 0 }))).toThrow(RangeError);
  });
});
