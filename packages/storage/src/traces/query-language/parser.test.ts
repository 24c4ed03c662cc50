import { describe, expect, it } from 'vitest';
import { QueryLanguageError } from './errors.ts';
import { parseQuery, type QueryNode } from './parser.ts';

/** A compact form of the tree: predicates as "field op values". */
function shape(node: QueryNode): unknown {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { [node.kind]: node.items.map(shape) };
    case 'not':
      return { not: shape(node.item) };
    case 'hasSpan':
      return { hasSpan: shape(node.item) };
    case 'predicate': {
      const field = node.key === undefined ? node.field.name : `${node.field.name}[${node.key}]`;
      return [field, node.op, ...node.values.map((v) => v.value)].join(' ');
    }
  }
}

const parsed = (text: string) => shape(parseQuery(text));

function errorOf(text: string): QueryLanguageError {
  try {
    parseQuery(text);
  } catch (err) {
    if (err instanceof QueryLanguageError) return err;
    throw err;
  }
  throw new Error(`expected ${text} to fail`);
}

describe('parseQuery precedence', () => {
  it('binds not tighter than and, and tighter than or', () => {
    expect(parsed('errors > 1 or not spans > 2 and cost > 3')).toEqual({
      or: ['errors > 1', { and: [{ not: 'spans > 2' }, 'cost > 3'] }],
    });
  });

  it('lets parentheses override it', () => {
    expect(parsed('(errors > 1 or spans > 2) and not (cost > 3 or tokens < 4)')).toEqual({
      and: [{ or: ['errors > 1', 'spans > 2'] }, { not: { or: ['cost > 3', 'tokens < 4'] } }],
    });
  });

  it('flattens chains of the same operator', () => {
    expect(parsed('spans = 1 and spans = 2 and spans = 3')).toEqual({ and: ['spans = 1', 'spans = 2', 'spans = 3'] });
  });

  it('reads keywords and field names in any case', () => {
    expect(parsed('NOT Status = "ERROR" AND Session EXISTS Or MODEL Contains "gpt"')).toEqual({
      or: [{ and: [{ not: 'status = error' }, 'session exists'] }, 'model contains gpt'],
    });
  });
});

describe('parseQuery predicates', () => {
  it.each([
    ['status != "ok"', 'status != ok'],
    ['duration > 150ms', 'duration > 150'],
    ['duration <= 2s', 'duration <= 2000'],
    ['duration >= 1.5m', 'duration >= 90000'],
    ['duration < 300', 'duration < 300'],
    ['cost == 0.5', 'cost = 0.5'],
    ['environment in ["prod", \'dev\']', 'environment in prod dev'],
    ['name startswith "chk"', 'name startswith chk'],
    ['attributes["customer.tier"] exists', 'attributes[customer.tier] exists'],
    ['attributes["ok"] = true', 'attributes[ok] = true'],
    ['score["helpful"] = true', 'score[helpful] = 1'],
    ['score["verdict"] = "pass"', 'score[verdict] = pass'],
    ['flag = "MISSING_MODEL"', 'flag = missing_model'],
  ])('%s', (text, expected) => {
    expect(parsed(text)).toBe(expected);
  });

  it('reads span fields inside has span(...)', () => {
    expect(parsed('has span(type = "tool" and name = "search" and status = "error")')).toEqual({
      hasSpan: { and: ['type = tool', 'name = search', 'status = error'] },
    });
    // `model` is the trace's model list outside, one span's model inside.
    expect(parseQuery('model = "a"')).toMatchObject({ field: { scope: 'trace', type: 'array' } });
    expect(parseQuery('has span(model = "a")')).toMatchObject({ item: { field: { scope: 'span', type: 'string' } } });
  });
});

describe('parseQuery errors', () => {
  it.each([
    ['duration > abc', 11, "a number or duration after '>'", `at 11: expected a number or duration after '>' but found "abc"`],
    ['cost > 2s', 7, "a number after '>'", undefined],
    ['name > "a"', 5, 'an operator of name: one of =, !=, in, contains, startswith, exists', undefined],
    ['status = "bad"', 9, 'status to be one of "ok", "error", "unset"', undefined],
    ['status = 1', 9, `one of "ok", "error", "unset" after '='`, undefined],
    ['name contains 5', 14, "a string after 'contains'", undefined],
    ['(status = "ok"', 14, "'and', 'or' or ')'", `at 14: expected 'and', 'or' or ')' but found the end of the query`],
    ['status = "ok")', 13, "'and', 'or' or the end of the query", undefined],
    ['', 0, "a field, 'not', '(' or 'has span('", undefined],
    ['status = "ok" and', 17, "a field, 'not', '(' or 'has span('", undefined],
    ['colour = "red"', 0, 'a field (', undefined],
    ['environment in ["a" "b"]', 20, "',' or ']'", undefined],
    ['environment in "a"', 15, "'[' after 'in'", undefined],
    ['environment in []', 16, "a string after 'in'", undefined],
    ['attributes exists', 11, `'[' after attributes, as in attributes["key"]`, undefined],
    ['attributes[k] exists', 11, "a quoted key after 'attributes['", undefined],
    ['attributes[""] exists', 11, 'a key that is not empty', undefined],
    ['attributes["n"] > "x"', 18, "a number after '>'", undefined],
    ['attributes["n"] in [1, "x"]', 23, "a number like the list's first value", undefined],
    ['has span(score["x"] > 1)', 9, 'a span field (', undefined],
    ['has span(has span(name = "x"))', 9, 'a span field (', undefined],
    ['has spans(name = "x")', 4, "'span' after 'has'", undefined],
    ['has span name = "x"', 9, "'(' after 'has span'", undefined],
    ['session exists exists', 15, "'and', 'or' or the end of the query", undefined],
    ['flag contains "x"', 5, 'an operator of flag: one of =, !=, in, exists', undefined],
  ])('%j fails at %d', (text, position, expected, message) => {
    const err = errorOf(text);
    expect(err.position).toBe(position);
    expect(err.expected.startsWith(expected)).toBe(true);
    if (message) expect(err.message).toBe(message);
  });

  it('limits the query length', () => {
    const err = errorOf(`name = "${'x'.repeat(2_000)}"`);
    expect(err).toMatchObject({ position: 2_000, expected: 'a query of at most 2000 characters' });
  });

  it('limits nesting', () => {
    expect(() => parseQuery(`${'('.repeat(32)}spans > 1${')'.repeat(32)}`)).not.toThrow();
    expect(errorOf(`${'('.repeat(33)}spans > 1${')'.repeat(33)}`)).toMatchObject({ position: 32, expected: 'at most 32 levels of nesting' });
    expect(errorOf(`${'not '.repeat(40)}spans > 1`)).toMatchObject({ position: 128, expected: 'at most 32 levels of nesting' });
  });

  it('limits in lists', () => {
    const list = (n: number) => `spans in [${Array.from({ length: n }, (_, i) => i).join(',')}]`;
    expect(() => parseQuery(list(200))).not.toThrow();
    expect(errorOf(list(201))).toMatchObject({ expected: "']' (a list holds at most 200 values)" });
  });
});

describe('numbers beyond what a Float64 parameter holds', () => {
  it.each([
    ['duration > 99999999999999999999h', 11],
    ['tokens > 18446744073709551616', 9],
    ['has span(cost > -99999999999999999999)', 16],
  ])('%s is refused at the literal', (text, position) => {
    const err = (() => {
      try {
        parseQuery(text);
      } catch (e) {
        return e as QueryLanguageError;
      }
      throw new Error('parsed');
    })();
    expect(err).toBeInstanceOf(QueryLanguageError);
    expect(err.position).toBe(position);
    expect(err.message).toContain('a number between -9007199254740991 and 9007199254740991');
  });

  it('keeps the largest exact integer', () => {
    expect(() => parseQuery('tokens > 9007199254740991')).not.toThrow();
  });
});
