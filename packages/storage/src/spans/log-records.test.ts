import { describe, expect, it } from 'vitest';
import type { SpanLogRecord } from '@aos/otlp';
import { logRecordIds } from './log-records.ts';

const TRACE = 'a'.repeat(32);
const record = (spanId: string, eventName: string, content: string): SpanLogRecord => ({
  traceId: TRACE,
  spanId,
  // One millisecond for every message of a call, as @opentelemetry/instrumentation-openai stamps them.
  timeUnixNano: '1764108000000000000',
  eventName,
  attributes: { 'event.name': eventName, 'gen_ai.system': 'openai' },
  body: { content },
});

describe('logRecordIds', () => {
  it("sorts a span's records of one time in the order they were sent, each span counted apart", () => {
    const sent = [
      record('1111111111111111', 'gen_ai.user.message', 'weather?'),
      record('2222222222222222', 'gen_ai.user.message', 'other span'),
      record('1111111111111111', 'gen_ai.assistant.message', 'asks the tool'),
      record('1111111111111111', 'gen_ai.tool.message', 'sunny'),
    ];
    const ids = logRecordIds(sent);
    expect(ids.map((id) => id.slice(0, 8))).toEqual(['00000000', '00000000', '00000001', '00000002']);
    const spanOne = ids.filter((_, i) => sent[i]!.spanId === '1111111111111111');
    expect([...spanOne].sort()).toEqual(spanOne);
  });

  it('gives a replayed export the same ids, and different records different ids', () => {
    const sent = [record('1111111111111111', 'gen_ai.user.message', 'a'), record('1111111111111111', 'gen_ai.user.message', 'a')];
    expect(logRecordIds(sent)).toEqual(logRecordIds(sent.map((r) => ({ ...r }))));
    const [first] = logRecordIds([record('1111111111111111', 'gen_ai.user.message', 'a')]);
    const [other] = logRecordIds([record('1111111111111111', 'gen_ai.user.message', 'b')]);
    expect(first).not.toBe(other);
    expect(first).toMatch(/^0{8}-[0-9a-f]{32}$/);
  });
});
