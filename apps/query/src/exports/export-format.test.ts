import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, exportWriter } from './export-format.ts';

describe('csvCell', () => {
  it('quotes cells with a comma, a quote, CR or LF, doubling quotes (RFC 4180)', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
  });

  it('escapes text that a spreadsheet would run as a formula with a leading apostrophe', () => {
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    expect(csvCell('+1+2')).toBe("'+1+2");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('a=1')).toBe('a=1');
  });

  it('writes numbers as numbers (never escaped), nulls as empty cells, lists joined with |', () => {
    expect(csvCell(-1.5)).toBe('-1.5');
    expect(csvCell(0.000375)).toBe('0.000375');
    expect(csvCell(null)).toBe('');
    expect(csvCell(['gpt-4o', 'claude'])).toBe('gpt-4o|claude');
    expect(csvCell(['=evil', 'x'])).toBe("'=evil|x");
    expect(csvCell([])).toBe('');
  });

  it('ends each line with CRLF', () => {
    expect(csvLine(['a', 1, null])).toBe('a,1,\r\n');
  });
});

describe('exportWriter', () => {
  const rows = [{ id: 'x', n: 2, tags: ['a', 'b'], note: null }];

  it('writes CSV with a header line', () => {
    const writer = exportWriter('csv', ['id', 'n', 'tags', 'note'] as const);
    expect(writer.contentType).toBe('text/csv; charset=utf-8');
    expect(writer.head + writer.rows(rows)).toBe('id,n,tags,note\r\nx,2,a|b,\r\n');
  });

  it('writes one JSON object per line, keeping lists and nulls, with only the columns asked for', () => {
    const writer = exportWriter('jsonl', ['id', 'tags', 'note'] as const);
    expect(writer.contentType).toBe('application/x-ndjson');
    expect(writer.head).toBe('');
    const text = writer.rows([...rows, { id: 'line\nbreak', tags: [], note: null }]);
    expect(text.split('\n')).toHaveLength(3);
    expect(text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { id: 'x', tags: ['a', 'b'], note: null },
      { id: 'line\nbreak', tags: [], note: null },
    ]);
  });
});
