import { describe, expect, it } from 'vitest';
import { apiMessages, apiParts } from './api.ts';

describe('API form', () => {
  it("renames the model's snake_case keys only, never inside tool arguments or results", () => {
    const stored = JSON.stringify([
      { role: 'user', parts: [{ type: 'blob', modality: 'image', mime_type: 'image/png', size: 8 }, { type: 'file', modality: 'document', file_id: 'file-1' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: { mime_type: 'kept', finish_reason: 'kept' } }], finish_reason: 'tool_call' },
    ]);
    expect(apiMessages(stored)).toEqual([
      { role: 'user', parts: [{ type: 'blob', modality: 'image', size: 8, mimeType: 'image/png' }, { type: 'file', modality: 'document', fileId: 'file-1' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: { mime_type: 'kept', finish_reason: 'kept' } }], finishReason: 'tool_call' },
    ]);
  });

  it('reads empty or foreign stored text as no messages', () => {
    expect(apiMessages('')).toEqual([]);
    expect(apiMessages('not json')).toEqual([]);
    expect(apiParts('[{"type":"text","content":"Rules"}]')).toEqual([{ type: 'text', content: 'Rules' }]);
  });
});
