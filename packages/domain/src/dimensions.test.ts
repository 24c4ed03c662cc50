import { describe, expect, it } from 'vitest';
import { DIMENSION_KEY_PATTERN, dimensionValues } from './dimensions.ts';
import { spanRowsFromExport } from './normalize.ts';
import { makeContext, makeExport, makeSpan } from './test-fixtures.ts';

describe('dimensionValues', () => {
  it('reads the key itself, then metadata prefixes, then the OpenInference metadata JSON, then the resource', () => {
    const values = dimensionValues(
      ['tier', 'region', 'plan', 'team', 'absent'],
      {
        tier: 'gold',
        'langfuse.trace.metadata.region': 'eu',
        metadata: '{"plan":"pro","tier":"ignored: the plain attribute wins"}',
      },
      { team: 'search', tier: 'ignored: the span wins' },
    );
    expect(values).toEqual({ tier: 'gold', region: 'eu', plan: 'pro', team: 'search' });
  });

  it('stores non-string values as text and cuts long values', () => {
    const values = dimensionValues(['n', 'flag', 'long'], { 'ai.telemetry.metadata.n': 42, 'tag.flag': true, long: 'x'.repeat(1000) }, {});
    expect(values.n).toBe('42');
    expect(values.flag).toBe('true');
    expect(values.long).toHaveLength(256);
  });

  it('ignores a metadata attribute that is not a JSON object', () => {
    expect(dimensionValues(['a'], { metadata: 'not json {' }, {})).toEqual({});
    expect(dimensionValues(['a'], { metadata: '[1,2]' }, {})).toEqual({});
  });

  it('allows keys users can type in dim=key:value, nothing with a colon', () => {
    expect(DIMENSION_KEY_PATTERN.test('customer.tier')).toBe(true);
    expect(DIMENSION_KEY_PATTERN.test('team/name-2')).toBe(true);
    expect(DIMENSION_KEY_PATTERN.test('a:b')).toBe(false);
    expect(DIMENSION_KEY_PATTERN.test('')).toBe(false);
  });
});

describe('spanRowsFromExport annotations', () => {
  it('sets masked rules by export position and dimensions from the batch keys', () => {
    const batch = makeExport([
      makeSpan({ spanId: '1111111111111111', attributes: { 'metadata.tier': 'gold' } }),
      makeSpan({ spanId: '2222222222222222' }),
    ]);
    const rows = spanRowsFromExport(batch, makeContext({ dimensionKeys: ['tier'], maskedRules: { 1: ['email', 'jwt'] } }));
    expect(rows.map((r) => [r.masked_rules, r.dimensions])).toEqual([
      [[], { tier: 'gold' }],
      [['email', 'jwt'], {}],
    ]);
  });
});
