import { describe, expect, it } from 'vitest';
import { unsupportedSchemaKeywords, validateJsonSchema } from './json-schema.ts';

const schema = {
  type: 'object',
  required: ['name', 'tags'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 2, pattern: '^[a-z]+$' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 2, uniqueItems: true },
    kind: { oneOf: [{ const: 'x' }, { type: 'number' }] },
  },
};

describe('validateJsonSchema', () => {
  it('accepts a conforming value', () => {
    expect(validateJsonSchema(schema, { name: 'ann', age: 30, tags: ['a'], kind: 3 })).toEqual([]);
  });

  it('reports every problem with its path', () => {
    const errors = validateJsonSchema(schema, { name: 'A', age: 1.5, tags: ['a', 'a', 'c'], extra: 1, kind: true });
    expect(errors).toEqual(
      expect.arrayContaining([
        '/name: shorter than 2 characters',
        '/name: does not match ^[a-z]+$',
        '/age: expected integer, found number',
        '/tags: more than 2 items',
        '/tags: items are not unique',
        '/tags/2: not one of the allowed values',
        '/extra: no value is allowed here',
        '/kind: matches 0 of oneOf, expected exactly 1',
      ]),
    );
    expect(validateJsonSchema(schema, [])).toEqual(['/: expected object, found array']);
    expect(validateJsonSchema(schema, {})).toEqual(['/name: is required', '/tags: is required']);
  });

  it('refuses keywords it does not implement, so nothing is silently ignored', () => {
    expect(unsupportedSchemaKeywords(schema)).toEqual([]);
    expect(unsupportedSchemaKeywords({ type: 'object', properties: { a: { $ref: '#/defs/a' } }, if: {} })).toEqual(['#/properties/a/$ref', '#/if']);
    expect(unsupportedSchemaKeywords({ pattern: '(' })).toEqual(['#/pattern: not a valid regular expression']);
  });
});
