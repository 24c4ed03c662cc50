import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './model.ts';
import { storedJson } from './stored.ts';

const say = (role: ChatMessage['role'], content: string): ChatMessage => ({ role, parts: [{ type: 'text', content }] });

describe('storedJson', () => {
  it("is '' for no messages and the JSON text when it fits", () => {
    expect(storedJson(undefined, 100)).toEqual({ text: '', truncated: false });
    expect(storedJson([], 100)).toEqual({ text: '', truncated: false });
    expect(storedJson([say('user', 'hi')], 100)).toEqual({ text: '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]', truncated: false });
  });

  it('keeps the source text when it holds the list and fits', () => {
    const source = '[ {"role": "user", "parts": [{"type": "text", "content": "hi"}]} ]';
    expect(storedJson([say('user', 'hi')], 1000, source)).toEqual({ text: source, truncated: false });
  });

  it('cuts the longest texts so the JSON stays valid and within the limit', () => {
    const messages = [say('system', 'short rules'), say('user', 'ü'.repeat(5000)), { role: 'assistant', parts: [{ type: 'tool_call', name: 'f', arguments: { q: 'x'.repeat(3000) } }] } as ChatMessage];
    const stored = storedJson(messages, 2000);
    expect(stored.truncated).toBe(true);
    expect(Buffer.byteLength(stored.text)).toBeLessThanOrEqual(2000);
    const parsed = JSON.parse(stored.text) as ChatMessage[];
    expect(parsed.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(parsed[0]!.parts[0]).toEqual({ type: 'text', content: 'short rules' });
    const cut = (parsed[1]!.parts[0] as { content: string }).content;
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.length).toBeGreaterThan(100);
  });

  it('drops the oldest messages when the shape alone does not fit', () => {
    const many = Array.from({ length: 200 }, (_, i) => say('user', `message ${i}`));
    const stored = storedJson(many, 1000);
    expect(stored.truncated).toBe(true);
    expect(Buffer.byteLength(stored.text)).toBeLessThanOrEqual(1000);
    const parsed = JSON.parse(stored.text) as ChatMessage[];
    expect(parsed.at(-1)).toEqual(say('user', 'message 199'));
  });
});
