import { describe, expect, it } from 'vitest';
import { foldLogRecords, isSpanLogEvent, type JoinableSpan, type SpanEventRecord } from './span-log-join.ts';

const empty: JoinableSpan = {
  input: '',
  output: '',
  input_messages: '',
  output_messages: '',
  system_instructions: '',
  events: '[]',
  quality_flags: [],
  log_record_fields: [],
};

const user: SpanEventRecord = { name: 'gen_ai.user.message', timeUnixNano: '2', attributes: { 'gen_ai.system': 'openai' }, body: { content: 'Weather in Paris?' } };
const system: SpanEventRecord = { name: 'gen_ai.system.message', timeUnixNano: '1', attributes: {}, body: { content: 'Be brief.' } };
const choice: SpanEventRecord = {
  name: 'gen_ai.choice',
  timeUnixNano: '3',
  attributes: {},
  body: { index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] } },
};

describe('folding GenAI event log records into their span', () => {
  it('fills messages and texts as the same events on the span would, in time order', () => {
    const folded = foldLogRecords(empty, [choice, user, system], 10_000);
    expect(JSON.parse(folded.input_messages)).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
    ]);
    expect(JSON.parse(folded.output_messages)).toEqual([
      { role: 'assistant', finish_reason: 'tool_calls', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
    ]);
    expect([folded.input, folded.output]).toEqual(['Weather in Paris?', 'get_weather({"city":"Paris"})']);
    expect(folded.log_record_fields).toEqual(['input_messages', 'input', 'output_messages', 'output']);
  });

  it("keeps what the span's own attributes gave", () => {
    const own = { ...empty, input: 'From the span', input_messages: '[{"role":"user","parts":[{"type":"text","content":"From the span"}]}]' };
    const folded = foldLogRecords(own, [user, choice], 10_000);
    expect([folded.input, folded.input_messages]).toEqual([own.input, own.input_messages]);
    expect(folded.output).toBe('get_weather({"city":"Paris"})');
    expect(folded.log_record_fields).toEqual(['output_messages', 'output']);
  });

  it('recomputes what an earlier fold filled when more records come, and changes nothing when the same come again', () => {
    const first = foldLogRecords(empty, [user], 10_000);
    expect(first.output).toBe('');
    const second = foldLogRecords(first, [user, choice], 10_000);
    expect(second).toEqual(foldLogRecords(empty, [user, choice], 10_000));
    expect(foldLogRecords(second, [user, choice], 10_000)).toEqual(second);
  });

  it("reads the span's own message events together with its records", () => {
    const withEvent = { ...empty, events: JSON.stringify([{ name: 'gen_ai.user.message', timeUnixNano: '2', attributes: { content: 'From an event' } }]) };
    const folded = foldLogRecords(withEvent, [choice], 10_000);
    expect(folded.input).toBe('From an event');
    expect(folded.output).toBe('get_weather({"city":"Paris"})');
  });

  it('cuts texts to the size limit and flags the span', () => {
    const long: SpanEventRecord = { ...user, body: { content: 'x'.repeat(500) } };
    const folded = foldLogRecords(empty, [long], 100);
    expect(Buffer.byteLength(folded.input)).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(folded.input_messages)).toBeLessThanOrEqual(100);
    expect(folded.quality_flags).toEqual(['attribute_truncated']);
  });

  it('keeps message events and evaluation results only', () => {
    expect(['gen_ai.user.message', 'gen_ai.choice', 'gen_ai.client.inference.operation.details', 'gen_ai.evaluation.result'].every(isSpanLogEvent)).toBe(true);
    expect(['', 'http.request', 'gen_ai.client.operation.exception'].some(isSpanLogEvent)).toBe(false);
  });
});
