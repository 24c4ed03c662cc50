import { describe, expect, it } from 'vitest';
import { countRecords } from './count-records.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('countRecords', () => {
  it('counts JSON lines', () => {
    expect(countRecords('jsonl', bytes(''))).toBe(0);
    expect(countRecords('jsonl', bytes('{"a":"x\\ny"}\n{"a":"\\""}\n'))).toBe(2);
  });

  it('counts CSV records, not line feeds inside quoted cells', () => {
    expect(countRecords('csv', bytes('"a",1\r\n"b",2\r\n'))).toBe(2);
    expect(countRecords('csv', bytes('"say ""hi"",\r\nthen\nbye",1\r\n"x"\r\n'))).toBe(2);
    expect(countRecords('csv', bytes('"""",""\r\n""""""\r\n'))).toBe(2);
    expect(countRecords('csv', bytes('1,2\r\n'))).toBe(1);
  });
});
