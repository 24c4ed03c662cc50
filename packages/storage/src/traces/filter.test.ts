// The one filter builder: a span filter's conditions on the spans themselves, and a trace
// filter's span fields as "the trace has a span with …", written by the same code.
import { describe, expect, it } from 'vitest';
import { spanFilterConditions, traceFilterSql, type SpanFilter, type TraceFilter } from './filter.ts';

const WINDOW = { projectId: 'project-1', startTimeMs: Date.UTC(2026, 0, 5), endTimeMs: Date.UTC(2026, 0, 5, 8) };
const SHARED = {
  sessionId: 'session-1',
  userId: 'user-1',
  platform: 'web',
  search: 'refund',
  dimensions: [{ key: 'customer', value: 'acme' }],
};

describe('spanFilterConditions', () => {
  it('starts with the project and window, then one condition a field, its parameters under the prefix', () => {
    const params: Record<string, unknown> = {};
    const filter: SpanFilter = { ...WINDOW, type: 'llm', minCost: 0.5, qualityFlags: ['empty_output'], ...SHARED };
    const conditions = spanFilterConditions(filter, params, 'sf_');
    expect(conditions.slice(0, 3)).toEqual([
      'project_id = {sf_projectId:String}',
      'start_time >= {sf_start:DateTime64(3)}',
      'start_time < {sf_end:DateTime64(3)}',
    ]);
    expect(conditions).toContain('span_type = {sf_type:String}');
    expect(conditions).toContain('cost >= {sf_minCost:Float64}');
    expect(conditions).toContain('hasAll(quality_flags, {sf_qualityFlags:Array(String)})');
    expect(conditions).toContain('platform = {sf_platform:String}');
    expect(conditions).toContain('dimensions[{sf_dimKey0:String}] = {sf_dimValue0:String}');
    expect(conditions).toHaveLength(3 + 8);
    expect(params).toMatchObject({ sf_projectId: 'project-1', sf_type: 'llm', sf_minCost: 0.5, sf_platform: 'web', sf_dimKey0: 'customer', sf_dimValue0: 'acme' });
  });
});

describe('traceFilterSql', () => {
  it('asks for a span with each span field, with the span filter’s own condition for it', () => {
    const spanConditions = spanFilterConditions({ ...WINDOW, ...SHARED }, {}).slice(3);
    const sql = traceFilterSql({ ...WINDOW, ...SHARED });
    expect(sql.traceIdConditions).toHaveLength(spanConditions.length);
    sql.traceIdConditions.forEach((condition, i) => {
      expect(condition).toMatch(/^trace_id IN \(\s*SELECT trace_id FROM spans\s/);
      expect(condition).toContain(`AND ${spanConditions[i]})`);
    });
    expect(sql.params).toMatchObject({ sessionId: 'session-1', userId: 'user-1', platform: 'web', search: 'refund', dimKey0: 'customer' });
  });

  it('reads status as the trace’s, not a span’s', () => {
    const filter: TraceFilter = { ...WINDOW, status: 'error' };
    const sql = traceFilterSql(filter);
    expect(sql.traceConditions).toContain('trace_status = {status:String}');
    expect(sql.traceIdConditions).toEqual([]);
  });
});
