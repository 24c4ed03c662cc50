import { describe, expect, it } from 'vitest';
import { base64Size, mediaPart, modalityOf, normalizeRole, toolCallPart, toolCallResponsePart } from './model.ts';

describe('message model', () => {
  it('maps every role a library uses onto system, user, assistant, tool', () => {
    expect(['developer', 'SYSTEM', 'human', 'model', 'ai', 'function', 'ipython', 'assistant'].map((r) => normalizeRole(r))).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(normalizeRole('narrator')).toBe('user');
    expect(normalizeRole(undefined, 'assistant')).toBe('assistant');
  });

  it('parses JSON text tool arguments and keeps other arguments as sent', () => {
    expect(toolCallPart('get_weather', 'call_1', '{"city":"Paris"}')).toEqual({ type: 'tool_call', name: 'get_weather', id: 'call_1', arguments: { city: 'Paris' } });
    expect(toolCallPart('get_weather', undefined, '{"city":"Par')).toEqual({ type: 'tool_call', name: 'get_weather', arguments: '{"city":"Par' });
    expect(toolCallPart('ping', '', '')).toEqual({ type: 'tool_call', name: 'ping' });
    expect(toolCallResponsePart('call_1', undefined)).toEqual({ type: 'tool_call_response', id: 'call_1', response: null });
  });

  it('never keeps a blob: a data URL or base64 becomes its MIME type, modality and size', () => {
    const png = Buffer.from('0123456789').toString('base64'); // 10 bytes
    expect(base64Size(png)).toBe(10);
    expect(mediaPart(`data:image/png;base64,${png}`)).toEqual({ type: 'blob', modality: 'image', mime_type: 'image/png', size: 10 });
    expect(mediaPart(png, 'audio/wav')).toEqual({ type: 'blob', modality: 'audio', mime_type: 'audio/wav', size: 10 });
    expect(mediaPart([1, 2, 3], 'application/pdf')).toEqual({ type: 'blob', modality: 'document', mime_type: 'application/pdf', size: 3 });
    expect(mediaPart({ 0: 1, 1: 2 }, undefined, 'image')).toEqual({ type: 'blob', modality: 'image', size: 2 });
  });

  it('keeps a URL as a reference', () => {
    expect(mediaPart('https://example.com/cat.png', 'image/png')).toEqual({
      type: 'uri',
      modality: 'image',
      mime_type: 'image/png',
      uri: 'https://example.com/cat.png',
    });
    expect(mediaPart('gs://bucket/report.pdf', undefined, 'document')).toEqual({ type: 'uri', modality: 'document', uri: 'gs://bucket/report.pdf' });
    expect(modalityOf('video/mp4')).toBe('video');
    expect(modalityOf(undefined)).toBeUndefined();
  });
});
