import { describe, expect, it } from 'vitest';
import { Promotion, restoreAttributes, type PromotedColumn } from './promoted-attributes.ts';

const long = (s: string) => s.repeat(20);

/** The attributes a promotion takes, left out of the map (as normalization leaves them out while flattening). */
function promoteAttributes(attributes: Record<string, string>, columns: Record<PromotedColumn, string>): Record<string, PromotedColumn> {
  const promotion = new Promotion(columns);
  for (const key in attributes) if (promotion.take(key, attributes[key]!)) delete attributes[key];
  return promotion.refs;
}

describe('Promotion / restoreAttributes', () => {
  it('moves long values equal to a promoted column into references, and restores them', () => {
    const input = long('prompt ');
    const output = long('answer ');
    const args = long('{"q":1}');
    const original = {
      'input.value': input,
      'output.value': output,
      'gen_ai.tool.call.arguments': args,
      'gen_ai.request.model': 'gpt-4o',
      'other.text': long('unrelated '),
    };
    const messages = long('[{"role":"user","parts":[]}]');
    const attributes: Record<string, string> = { ...original, 'gen_ai.input.messages': messages };
    const columns = { input, output, tool_arguments: args, input_messages: messages, output_messages: '', system_instructions: '' };
    const refs = promoteAttributes(attributes, columns);
    expect(refs).toEqual({
      'input.value': 'input',
      'output.value': 'output',
      'gen_ai.tool.call.arguments': 'tool_arguments',
      'gen_ai.input.messages': 'input_messages',
    });
    expect(Object.keys(attributes).sort()).toEqual(['gen_ai.request.model', 'other.text']);
    expect(restoreAttributes(attributes, refs, columns)).toEqual({ ...original, 'gen_ai.input.messages': messages });
  });

  it('keeps short values and values that differ from the column (rebuilt or truncated input)', () => {
    const attributes = { short: 'hi', rebuilt: long('x') };
    const refs = promoteAttributes(attributes, {
      input: 'hi',
      output: `${long('x')}!`,
      tool_arguments: '',
      input_messages: '',
      output_messages: '',
      system_instructions: '',
    });
    expect(refs).toEqual({});
    expect(attributes).toEqual({ short: 'hi', rebuilt: long('x') });
  });

  it('ignores references to unknown columns when restoring', () => {
    expect(restoreAttributes({ a: '1' }, { b: 'nope' }, { input: 'i', output: 'o', tool_arguments: 't' })).toEqual({ a: '1' });
  });
});
