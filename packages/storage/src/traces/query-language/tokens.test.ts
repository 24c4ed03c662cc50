import { describe, expect, it } from 'vitest';
import { QueryLanguageError } from './errors.ts';
import { tokenize } from './tokens.ts';

const kinds = (text: string) => tokenize(text).map((t) => [t.kind, t.value, t.pos]);

describe('tokenize', () => {
  it('splits fields, operators, values and punctuation with their offsets', () => {
    expect(kinds('status = "error" and duration>=2s')).toEqual([
      ['ident', 'status', 0],
      ['op', '=', 7],
      ['string', 'error', 9],
      ['ident', 'and', 17],
      ['ident', 'duration', 21],
      ['op', '>=', 29],
      ['duration', '2s', 31],
      ['eof', '', 33],
    ]);
  });

  it('reads every operator, normalising == to =', () => {
    expect(tokenize('= == != > >= < <=').filter((t) => t.kind === 'op').map((t) => t.value)).toEqual(['=', '=', '!=', '>', '>=', '<', '<=']);
  });

  it('reads punctuation', () => {
    expect(tokenize('( ) [ ] ,').filter((t) => t.kind === 'punct').map((t) => t.value)).toEqual(['(', ')', '[', ']', ',']);
  });

  it.each([
    ['150ms', 150],
    ['2s', 2000],
    ['1.5m', 90_000],
    ['1h', 3_600_000],
    ['2S', 2000],
    ['0.5s', 500],
  ])('reads the duration %s as %d ms', (text, ms) => {
    const [token] = tokenize(text);
    expect(token).toMatchObject({ kind: 'duration', number: ms });
  });

  it.each([
    ['42', 42],
    ['-3', -3],
    ['0.25', 0.25],
    ['.5', 0.5],
  ])('reads the number %s', (text, n) => {
    expect(tokenize(text)[0]).toMatchObject({ kind: 'number', number: n });
  });

  it('reads both quote styles and unescapes', () => {
    expect(tokenize(String.raw`"a\"b" 'c\'d' "\\ \n \t \u00e9"`).slice(0, 3).map((t) => t.value)).toEqual(['a"b', "c'd", '\\ \n \t é']);
    expect(tokenize(`"it's"`)[0]!.value).toBe("it's");
  });

  it.each([
    ['"open', 5, 'a closing " for the text at 0'],
    [String.raw`"bad \q"`, 5, String.raw`an escape (\\, \", \', \n, \t, \r, \0, \uXXXX)`],
    ['2x', 1, 'a duration unit (ms, s, m, h)'],
    ['1.', 2, 'a digit after the decimal point'],
    ['name; DROP', 4, 'a field, value, operator or parenthesis'],
    ['a ! b', 2, 'a field, value, operator or parenthesis'],
  ])('refuses %j at %d', (text, position, expected) => {
    const err = catchError(() => tokenize(text));
    expect(err).toBeInstanceOf(QueryLanguageError);
    expect(err).toMatchObject({ position, expected });
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
