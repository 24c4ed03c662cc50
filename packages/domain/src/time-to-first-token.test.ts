import { describe, expect, it } from 'vitest';
import { makeSpan, nsAfterStart, rowOf } from './test-fixtures.ts';

describe('time to first token', () => {
  it('measures from the earliest first-token event to the span start', () => {
    const row = rowOf(
      makeSpan({
        attributes: { 'gen_ai.operation.name': 'chat' },
        events: [
          { name: 'gen_ai.content.completion.chunk', timeUnixNano: nsAfterStart(731.25), attributes: {} },
          { name: 'gen_ai.content.completion.chunk', timeUnixNano: nsAfterStart(250.5), attributes: {} },
          { name: 'unrelated', timeUnixNano: nsAfterStart(10), attributes: {} },
        ],
      }),
    );
    expect(row.time_to_first_token_ms).toBe(250.5);
  });

  it('converts the seconds-based semconv attribute to ms', () => {
    const row = rowOf(makeSpan({ attributes: { 'gen_ai.server.time_to_first_token': 0.35 } }));
    expect(row.time_to_first_token_ms).toBeCloseTo(350, 9);
  });

  it('reads the GenAI span attribute time_to_first_chunk (seconds) and Mastra\'s completion start time', () => {
    expect(rowOf(makeSpan({ attributes: { 'gen_ai.response.time_to_first_chunk': 0.2 } })).time_to_first_token_ms).toBeCloseTo(200, 9);
    const mastra = rowOf(makeSpan({ attributes: { 'mastra.completion_start_time': '2025-01-01T00:00:00.420Z' } }));
    expect(mastra.time_to_first_token_ms).toBe(420);
  });

  it('reads a "seconds" value that only fits the span as ms as ms', () => {
    // 420 s would exceed the 1.5 s span; 420 ms fits.
    const row = rowOf(makeSpan({ attributes: { 'gen_ai.server.time_to_first_token': 420 } }));
    expect(row.time_to_first_token_ms).toBe(420);
  });

  it('is null when nothing says, or when the event precedes the span', () => {
    expect(rowOf(makeSpan()).time_to_first_token_ms).toBeNull();
    const early = makeSpan({
      startTimeUnixNano: nsAfterStart(100),
      events: [{ name: 'ai.stream.firstChunk', timeUnixNano: nsAfterStart(50), attributes: {} }],
    });
    expect(rowOf(early).time_to_first_token_ms).toBeNull();
  });
});
