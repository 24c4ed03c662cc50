import { describe, expect, it } from 'vitest';
import { compileTraceQuery } from './compile.ts';
import { QueryLanguageError } from './errors.ts';
import { QUERY_FIELDS } from './fields.ts';

const SPAN_SCAN =
  'trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND ';

describe('compileTraceQuery: trace fields', () => {
  it.each([
    ['status = "error"', '(trace_status = {q0:String})', { q0: 'error' }],
    ['status in ["ok", "unset"]', '(has({q0:Array(String)}, trace_status))', { q0: ['ok', 'unset'] }],
    ['name != "x"', '(trace_name != {q0:String})', { q0: 'x' }],
    ['name contains "Check"', '(positionCaseInsensitiveUTF8(trace_name, {q0:String}) > 0)', { q0: 'Check' }],
    ['name startswith "chk"', '(startsWith(trace_name, {q0:String}))', { q0: 'chk' }],
    ['duration > 150ms', '(trace_duration_ms > {q0:Float64})', { q0: 150 }],
    ['duration >= 2s', '(trace_duration_ms >= {q0:Float64})', { q0: 2000 }],
    ['duration < 1.5m', '(trace_duration_ms < {q0:Float64})', { q0: 90_000 }],
    ['duration <= 1h', '(trace_duration_ms <= {q0:Float64})', { q0: 3_600_000 }],
    ['duration = 250', '(trace_duration_ms = {q0:Float64})', { q0: 250 }],
    ['cost >= 0.05', '(trace_cost >= {q0:Float64})', { q0: 0.05 }],
    ['tokens in [1, 2]', '(has({q0:Array(Float64)}, toFloat64(trace_total_tokens)))', { q0: [1, 2] }],
    ['inputTokens > 1 and outputTokens < 2', '((trace_input_tokens > {q0:Float64} AND trace_output_tokens < {q1:Float64}))', { q0: 1, q1: 2 }],
    ['spans != 3 or errors = 0', '((span_count != {q0:Float64} OR error_count = {q1:Float64}))', { q0: 3, q1: 0 }],
    ['model = "gpt-4o"', '(has(trace_models, {q0:String}))', { q0: 'gpt-4o' }],
    ['model != "gpt-4o"', '(NOT has(trace_models, {q0:String}))', { q0: 'gpt-4o' }],
    ['model in ["a", "b"]', '(hasAny(trace_models, {q0:Array(String)}))', { q0: ['a', 'b'] }],
    ['model contains "gpt"', '(arrayExists(q_item -> positionCaseInsensitiveUTF8(q_item, {q0:String}) > 0, trace_models))', { q0: 'gpt' }],
    ['model startswith "gpt"', '(arrayExists(q_item -> startsWith(q_item, {q0:String}), trace_models))', { q0: 'gpt' }],
    ['model exists', '(notEmpty(trace_models))', {}],
    ['environment = "prod"', '(trace_environment = {q0:String})', { q0: 'prod' }],
    ['platform = "vercel-ai"', '(trace_platform = {q0:String})', { q0: 'vercel-ai' }],
    ['session exists', "(trace_session_id != '')", {}],
    ['user = "u1"', '(trace_user_id = {q0:String})', { q0: 'u1' }],
    ['service = "api"', '(trace_service_name = {q0:String})', { q0: 'api' }],
    ['input contains "refund"', '(positionCaseInsensitiveUTF8(trace_input, {q0:String}) > 0)', { q0: 'refund' }],
    ['output exists', "(trace_output != '')", {}],
    ['not spans > 1', '(NOT (span_count > {q0:Float64}))', { q0: 1 }],
  ])('%s', (text, condition, params) => {
    expect(compileTraceQuery(text)).toEqual({ condition, params });
  });
});

describe('compileTraceQuery: span-level fields', () => {
  it('wraps span predicates in a span subquery of the scanned window', () => {
    expect(compileTraceQuery('has span(type = "tool" and name = "search" and status = "error")')).toEqual({
      condition: `(${SPAN_SCAN}(span_type = {q0:String} AND name = {q1:String} AND status = {q2:String})))`,
      params: { q0: 'tool', q1: 'search', q2: 'error' },
    });
  });

  it.each([
    ['has span(tool = "search")', 'tool_name = {q0:String}'],
    ['has span(duration > 2s)', 'duration_ms > {q0:Float64}'],
    ['has span(cost > 0.1)', 'cost > {q0:Float64}'],
    ['has span(tokens > 1)', 'total_tokens > {q0:Float64}'],
    ['has span(model startswith "claude")', 'startsWith(model, {q0:String})'],
    ['has span(provider = "openai")', 'provider = {q0:String}'],
    ['has span(flag = "missing_model")', 'has(quality_flags, {q0:String})'],
    ['has span(flag exists)', 'notEmpty(quality_flags)'],
    ['has span(resource["host.name"] = "w1")', 'resource_attributes[{q0:String}] = {q1:String}'],
    ['provider = "openai"', 'provider = {q0:String}'],
    ['flag in ["missing_model", "data_dropped"]', 'hasAny(quality_flags, {q0:Array(String)})'],
    ['tag = "beta"', "has(arrayConcat(JSONExtract(attributes['tag.tags'], 'Array(String)'), JSONExtract(attributes['langfuse.trace.tags'], 'Array(String)')), {q0:String})"],
  ])('%s', (text, spanCondition) => {
    expect(compileTraceQuery(text).condition).toBe(`(${SPAN_SCAN}${spanCondition}))`);
  });

  it('means "no span" for != on a span-level field at trace level', () => {
    expect(compileTraceQuery('provider != "openai"').condition).toBe(`(${SPAN_SCAN.replace('trace_id IN', 'trace_id NOT IN')}provider = {q0:String}))`);
  });

  it('reads attributes, following a promoted value to its column', () => {
    const { condition, params } = compileTraceQuery('attributes["input.value"] contains "refund"');
    expect(condition).toContain('if(mapContains(attributes, {q0:String}), attributes[{q0:String}], multiIf(');
    expect(condition).toContain("attribute_refs[{q0:String}] = 'input', input");
    expect(condition).toContain("attribute_refs[{q0:String}] = 'output', output");
    expect(condition).toContain("attribute_refs[{q0:String}] = 'tool_arguments', tool_arguments");
    expect(condition).toContain('positionCaseInsensitiveUTF8(');
    expect(params).toEqual({ q0: 'input.value', q1: 'refund' });
    expect(compileTraceQuery('attributes["k"] exists').condition).toBe(
      `(${SPAN_SCAN}(mapContains(attributes, {q0:String}) OR mapContains(attribute_refs, {q0:String}))))`,
    );
  });

  it('compares attributes numerically when given a number, as text otherwise', () => {
    expect(compileTraceQuery('attributes["n"] >= 3').condition).toMatch(/toFloat64OrNull\(if\(.*\)\) >= \{q1:Float64\}\)\)$/);
    expect(compileTraceQuery('attributes["ok"] = true')).toMatchObject({ params: { q0: 'ok', q1: 'true' } });
    expect(compileTraceQuery('attributes["ok"] = true').condition).toMatch(/\) = \{q1:String\}\)\)$/);
  });

  it('reads metadata from the prefixes and the OpenInference metadata object', () => {
    const { condition } = compileTraceQuery('metadata["experiment"] = "exp-7"');
    for (const prefix of ['metadata.', 'ai.telemetry.metadata.', 'langfuse.trace.metadata.', 'langfuse.observation.metadata.']) {
      expect(condition).toContain(`concat('${prefix}', {q0:String})`);
    }
    expect(condition).toContain("JSONExtractString(attributes['metadata'], {q0:String})");
  });
});

describe('compileTraceQuery: scores', () => {
  const SCORES = "trace_id IN (SELECT trace_id FROM scores FINAL WHERE project_id = {projectId:String} AND trace_id != '' AND name = {q0:String}";
  it.each([
    ['score["q"] > 0.5', `(${SCORES} AND value > {q1:Float64} AND value IS NOT NULL))`, { q0: 'q', q1: 0.5 }],
    ['score["q"] = true', `(${SCORES} AND value = {q1:Float64} AND value IS NOT NULL))`, { q0: 'q', q1: 1 }],
    ['score["q"] = "pass"', `(${SCORES} AND string_value = {q1:String} AND string_value IS NOT NULL))`, { q0: 'q', q1: 'pass' }],
    ['score["q"] in [1, 2]', `(${SCORES} AND has({q1:Array(Float64)}, assumeNotNull(value)) AND value IS NOT NULL))`, { q0: 'q', q1: [1, 2] }],
    ['score["q"] exists', `(${SCORES}))`, { q0: 'q' }],
    ['score["q"] != 1', `(${SCORES.replace('trace_id IN', 'trace_id NOT IN')} AND value = {q1:Float64} AND value IS NOT NULL))`, { q0: 'q', q1: 1 }],
  ])('%s', (text, condition, params) => {
    expect(compileTraceQuery(text)).toEqual({ condition, params });
  });
});

describe('compileTraceQuery: parameters', () => {
  it('names parameters q0, q1, … in order, apart from the filter parameters', () => {
    const { params } = compileTraceQuery('name = "a" or (environment = "b" and has span(tool = "c")) or score["d"] > 1');
    expect(Object.keys(params)).toEqual(['q0', 'q1', 'q2', 'q3', 'q4']);
  });

  it('binds every value and key, so injection attempts stay data', () => {
    const attempts: Array<[string, string]> = [
      [`name = "x' OR 1=1 --"`, "x' OR 1=1 --"],
      [`attributes["k') OR 1=1 --"] exists`, "k') OR 1=1 --"],
      [`name contains "'; DROP TABLE spans; --"`, "'; DROP TABLE spans; --"],
      [`metadata["a')) OR ((1"] = "b"`, "a')) OR ((1"],
      [`score["x' OR '1'='1"] > 1`, "x' OR '1'='1"],
      [`environment in ["}", "{q0:String}"]`, '{q0:String}'],
      [`name = "\\u0027 OR 1=1"`, "' OR 1=1"],
    ];
    for (const [text, literal] of attempts) {
      const { condition, params } = compileTraceQuery(text);
      expect(condition, text).not.toContain(literal);
      expect(condition, text).not.toContain('OR 1=1');
      expect(condition, text).not.toContain('DROP');
      expect(JSON.stringify(params), text).toContain(JSON.stringify(literal).slice(1, -1));
    }
  });

  it('refuses field names that are not in the catalogue', () => {
    for (const text of ['name; DROP TABLE spans', 'trace_id = "x"', 'project_id = "other"', 'nam\\u0065 = "x"', 'attributes["k"]) OR (1 = 1']) {
      expect(() => compileTraceQuery(text), text).toThrow(QueryLanguageError);
    }
  });
});

describe('QUERY_FIELDS', () => {
  it('documents every field with an example that compiles', () => {
    expect(QUERY_FIELDS.length).toBeGreaterThan(30);
    for (const field of QUERY_FIELDS) {
      expect(field.description, field.name).not.toBe('');
      expect(field.operators.length, field.name).toBeGreaterThan(0);
      expect(() => compileTraceQuery(field.example), field.example).not.toThrow();
      expect(field.example.toLowerCase(), field.name).toContain(field.name.toLowerCase());
    }
  });

  it('names the fields the issue asks for', () => {
    const names = (scope: string) => QUERY_FIELDS.filter((f) => f.scope === scope).map((f) => f.name);
    expect(names('trace')).toEqual(
      expect.arrayContaining(['status', 'name', 'duration', 'cost', 'tokens', 'model', 'provider', 'environment', 'platform', 'session', 'user', 'tag', 'flag', 'score', 'attributes', 'metadata']),
    );
    expect(names('span')).toEqual(expect.arrayContaining(['name', 'type', 'status', 'model', 'tool', 'duration', 'cost', 'attributes']));
  });

  it('lists only operators the parser accepts for the field', () => {
    const ordered = ['>', '>=', '<', '<='];
    for (const field of QUERY_FIELDS) {
      const numeric = field.type === 'number' || field.type === 'duration';
      for (const op of field.operators) {
        const one = numeric || ordered.includes(op) ? '1' : JSON.stringify(field.values?.[0] ?? 'v');
        const value = op === 'exists' ? '' : op === 'in' ? `[${one}]` : one;
        const predicate = `${field.name}${field.type === 'map' || field.type === 'score' ? '["k"]' : ''} ${op} ${value}`;
        const text = field.scope === 'span' ? `has span(${predicate})` : predicate;
        expect(() => compileTraceQuery(text), text).not.toThrow();
      }
    }
  });
});
