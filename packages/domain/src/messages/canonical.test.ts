import { describe, expect, it } from 'vitest';
import { canonicalMessages, canonicalParts } from './canonical.ts';
import { messagesOf } from './chat-messages.ts';

/** Lists the readers keep exactly as sent: the fast path must agree with them. */
const CANONICAL = [
  [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }],
  [
    { role: 'assistant', parts: [{ type: 'reasoning', content: 'r' }, { type: 'tool_call', id: 'c1', name: 'f', arguments: { a: 1 } }], finish_reason: 'tool_call' },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { ok: true } }] },
  ],
  [{ parts: [{ modality: 'image', type: 'uri', mime_type: 'image/png', uri: 'https://x.test/a.png' }], role: 'user', name: 'jane' }],
  [{ role: 'user', parts: [{ type: 'blob', modality: 'audio', size: 12 }, { type: 'file', file_id: 'f-1' }] }],
];
/** Lists the readers change: legacy keys, null ids, inline bytes, JSON text arguments, other roles. */
const NOT_CANONICAL = [
  [{ role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', result: 'x' }] }],
  [{ role: 'assistant', parts: [{ type: 'tool_call', id: null, name: 'f', arguments: {} }] }],
  [{ role: 'user', parts: [{ type: 'blob', modality: 'image', mime_type: 'image/png', content: 'iVBORw0KGgo=' }] }],
  [{ role: 'assistant', parts: [{ type: 'tool_call', name: 'f', arguments: '{"a":1}' }] }],
  [{ role: 'developer', parts: [{ type: 'text', content: 'x' }] }],
  [{ role: 'user', parts: [{ type: 'uri', mime_type: 'image/png', uri: 'https://x.test/a.png' }] }],
  [{ role: 'user', content: 'Hi' }],
  [{ role: 'user', parts: [{ type: 'tool_call_response', id: 'c1', response: 'x' }] }],
  [],
];

describe('canonical lists', () => {
  it.each(CANONICAL.map((list) => [JSON.stringify(list).slice(0, 60), list]))('takes %s as it is, as the readers would', (_, list) => {
    expect(canonicalMessages(list)).toBe(list);
    expect(messagesOf(list)).toEqual(list);
  });

  it.each(NOT_CANONICAL.map((list) => [JSON.stringify(list).slice(0, 60), list]))('leaves %s to the readers', (_, list) => {
    expect(canonicalMessages(list)).toBeUndefined();
    const read = messagesOf(list);
    if (read !== undefined) expect(read).not.toEqual(list);
  });

  it('checks system instruction parts the same way', () => {
    const parts = [{ type: 'text', content: 'Rules' }];
    expect(canonicalParts(parts)).toBe(parts);
    expect(canonicalParts([{ type: 'text', text: 'Rules' }])).toBeUndefined();
    expect(canonicalParts('Rules')).toBeUndefined();
  });
});
