import { describe, expect, it } from 'vitest';
import { parseJudgeReply, replyInstruction } from './judge-reply.ts';

const numeric = { type: 'numeric', min: 0, max: 1 } as const;

describe('parseJudgeReply', () => {
  it('reads the JSON object alone, in a code fence, or among words', () => {
    expect(parseJudgeReply('{"score":0.4,"reasoning":"ok"}', numeric)).toEqual({ ok: true, value: 0.4, stringValue: null, reasoning: 'ok' });
    expect(parseJudgeReply('```json\n{"score": 1}\n```', numeric)).toMatchObject({ ok: true, value: 1 });
    expect(parseJudgeReply('Here you go: {"score": "0.5", "reasoning": "half"} hope it helps', numeric)).toMatchObject({ ok: true, value: 0.5 });
  });

  it('fails, with the reason, on anything that is not a score of the expected type', () => {
    expect(parseJudgeReply('fine', numeric)).toMatchObject({ ok: false, error: expect.stringMatching(/no JSON object/) });
    expect(parseJudgeReply('{"verdict":1}', numeric)).toMatchObject({ ok: false, error: expect.stringMatching(/no "score"/) });
    expect(parseJudgeReply('{"score":1.5}', numeric)).toMatchObject({ ok: false, error: 'score 1.5 is outside 0..1' });
    expect(parseJudgeReply('{"score":"high"}', numeric)).toMatchObject({ ok: false });
    expect(parseJudgeReply('{"score":""}', numeric)).toMatchObject({ ok: false });
    expect(parseJudgeReply('{"score":"yes"}', { type: 'boolean' })).toMatchObject({ ok: false });
    expect(parseJudgeReply('{"score":"bad"}', { type: 'label', labels: ['good', 'ok'] })).toMatchObject({ ok: false });
  });

  it('booleans take true/false or their strings; labels match ignoring case and become the configured spelling', () => {
    expect(parseJudgeReply('{"score":"false"}', { type: 'boolean' })).toMatchObject({ ok: true, value: false });
    expect(parseJudgeReply('{"score":" Good "}', { type: 'label', labels: ['good', 'ok'] })).toMatchObject({ ok: true, value: null, stringValue: 'good' });
  });

  it('tells the model the expected score', () => {
    expect(replyInstruction({ type: 'label', labels: ['a', 'b'] })).toContain('exactly one of "a", "b"');
    expect(replyInstruction(numeric)).toContain('a number from 0 to 1');
  });
});
