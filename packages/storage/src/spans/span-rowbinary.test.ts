import { describe, expect, it } from 'vitest';
import type { SpanRow } from '@aos/domain';
import { RowBinaryWriter } from './rowbinary-writer.ts';
import { SPAN_COLUMN_TYPES, encodeSpanRowsRowBinary, spanRowBinaryRowCount } from './span-rowbinary.ts';
import { SPAN_COLUMNS } from './writes.ts';

/** Reads back what RowBinaryWriter wrote: LEB128 lengths (padded or not), then the values. */
class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varUInt(): number {
    let v = 0;
    for (let shift = 1; ; shift *= 128) {
      if (this.pos >= this.buf.length) throw new Error('read past the end');
      const b = this.buf[this.pos++]!;
      v += (b & 127) * shift;
      if (b < 128) return v;
    }
  }
  string(): string {
    const len = this.varUInt();
    this.pos += len;
    return this.buf.toString('utf8', this.pos - len, this.pos);
  }
  int64(): bigint {
    this.pos += 8;
    return this.buf.readBigInt64LE(this.pos - 8);
  }
  uint64(): bigint {
    this.pos += 8;
    return this.buf.readBigUInt64LE(this.pos - 8);
  }
}

const written = (write: (w: RowBinaryWriter) => void) => {
  const w = new RowBinaryWriter(16);
  write(w);
  return new Reader(w.take());
};

describe('RowBinaryWriter', () => {
  it('writes DateTime64(9) nanoseconds exactly from decimal seconds', () => {
    const times = ['0.000000001', '1767607200.123456789', '4102444800.999999999', '1700000000', '12.5', '9000000000.000000007'];
    const r = written((w) => times.forEach((t) => w.dateTime64Nanos(t)));
    for (const t of times) {
      const [s, f = ''] = t.split('.');
      expect(r.int64()).toBe(BigInt(s!) * 1_000_000_000n + BigInt(f.padEnd(9, '0')));
    }
  });

  it('writes UInt64 exactly past 2^53, from numbers and bigints', () => {
    const values = [0, 1, 2 ** 32, 2 ** 53 + 2, 2 ** 60, 2 ** 64 - 2048];
    const r = written((w) => {
      values.forEach((v) => w.uint64(v));
      w.uint64(18_446_744_073_709_551_615n);
    });
    for (const v of values) expect(r.uint64()).toBe(BigInt(v));
    expect(r.uint64()).toBe(18_446_744_073_709_551_615n);
  });

  it('reads decimal seconds spelled otherwise through Number, as before', () => {
    const r = written((w) => ['1e3', '+12.5', '7.25e'].forEach((t) => w.dateTime64Nanos(t)));
    expect(r.int64()).toBe(1_000_000_000_000n);
    expect(r.int64()).toBe(12_500_000_000n);
    // Decimals '25e' padded to '25e000000' are the number 25: not a time rows carry, written as it always was.
    expect(r.int64()).toBe(7_000_000_025n);
  });

  it('copies the kept encoding of a recurring text, the same bytes as encoding it again', () => {
    const texts = ['gen_ai.request.model', 'naïve 東京', '', 'x'.repeat(300), 'gen_ai.request.model', 'naïve 東京', 'x'.repeat(300)];
    const r = written((w) => texts.forEach((t) => w.recurringString(t)));
    for (const t of texts) expect(r.string()).toBe(t);
    const plain = written((w) => texts.forEach((t) => w.string(t)));
    expect(r.buf).toEqual(plain.buf);
  });

  it('writes strings of every length width, ASCII or not, growing the buffer as needed', () => {
    const texts = ['', 'a'.repeat(42), 'é'.repeat(42), 'x'.repeat(127), 'naïve 東京 🙂', '東'.repeat(5_000), '🙂'.repeat(400_000)];
    const r = written((w) => texts.forEach((t) => w.string(t)));
    for (const t of texts) expect(r.string()).toBe(t);
    expect(r.pos).toBe(r.buf.length);
  });
});

function spanRow(i: number, overrides: Partial<SpanRow> = {}): SpanRow {
  const row = Object.fromEntries(SPAN_COLUMNS.map((c) => [c, `${c}-${i}`])) as unknown as SpanRow;
  return {
    ...row,
    start_time: `17676072${i % 10}0.123456789`,
    end_time: `17676072${i % 10}1.000000001`,
    duration_ms: 1000.5,
    input_tokens: i, output_tokens: 2, total_tokens: 3, cached_input_tokens: 0, reasoning_tokens: 0,
    cost: 0.25,
    time_to_first_token_ms: i % 2 === 0 ? null : 12.5,
    attributes: { a: 'b', 'ключ': 'значение' },
    attribute_refs: {},
    resource_attributes: { 'service.name': 's' },
    quality_flags: ['missing_model'],
    masked_rules: [],
    dimensions: {},
    log_record_fields: [],
    ingested_at: 1_767_607_200_000,
    ...overrides,
  } as SpanRow;
}

describe('encodeSpanRowsRowBinary', () => {
  it('has a layout for every column', () => {
    expect(Object.keys(SPAN_COLUMN_TYPES).sort()).toEqual([...SPAN_COLUMNS].sort());
  });

  it('hands each call its own bytes, though the writer’s buffer is reused', () => {
    const first = encodeSpanRowsRowBinary([spanRow(1)]);
    const copy = Buffer.from(first);
    const second = encodeSpanRowsRowBinary([spanRow(2, { input: 'other'.repeat(10_000) })]);
    expect(first).toEqual(copy);
    expect(second.buffer).not.toBe(first.buffer);
    // Exact size, not a view into a larger buffer (a decode thread posts it to the main thread).
    expect(first.buffer.byteLength).toBe(first.length);
  });

  it('counts the rows it wrote by walking their layout', () => {
    const rows = Array.from({ length: 25 }, (_, i) =>
      spanRow(i, { attributes: Object.fromEntries(Array.from({ length: i * 10 }, (_, k) => [`k${k}`, 'v'.repeat(k)])), masked_rules: i % 3 === 0 ? ['email', 'card'] : [] }),
    );
    const bytes = encodeSpanRowsRowBinary(rows);
    expect(spanRowBinaryRowCount(bytes)).toBe(25);
    expect(spanRowBinaryRowCount(Buffer.alloc(0))).toBe(0);
    expect(() => spanRowBinaryRowCount(bytes.subarray(0, bytes.length - 3))).toThrow(/inside a row/);
  });

  it('writes every column in SPAN_COLUMNS order, as its type in SPAN_COLUMN_TYPES, for rows repeated across calls', () => {
    const rows = [spanRow(1), spanRow(2, { kind: 'client', model: 'gpt-4o', attribute_refs: { 'gen_ai.input.messages': 'input_messages' } as SpanRow['attribute_refs'] }), spanRow(1)];
    for (let call = 0; call < 2; call++) {
      const bytes = encodeSpanRowsRowBinary(rows);
      const r = new Reader(bytes);
      for (const row of rows) {
        for (const c of SPAN_COLUMNS) {
          const type = SPAN_COLUMN_TYPES[c];
          if (type === 'String' || type === 'LowCardinality(String)') expect(r.string(), c).toBe(row[c]);
          else if (type === 'Float64') expect((r.pos += 8, bytes.readDoubleLE(r.pos - 8)), c).toBe(row[c]);
          else if (type === 'Nullable(Float64)') expect(bytes[r.pos++] === 1 ? null : (r.pos += 8, bytes.readDoubleLE(r.pos - 8)), c).toBe(row[c]);
          else if (type === 'UInt64') expect(r.uint64(), c).toBe(BigInt(row[c] as number));
          else if (type.startsWith('DateTime64')) expect(r.int64(), c).toBe(BigInt((row[c] as string).replace('.', '')));
          else if (type.startsWith('Array')) expect(Array.from({ length: r.varUInt() }, () => r.string()), c).toEqual(row[c]);
          else expect(Object.fromEntries(Array.from({ length: r.varUInt() }, () => [r.string(), r.string()])), c).toEqual(row[c]);
        }
      }
      expect(r.pos).toBe(bytes.length);
    }
  });

  it('stores not-finite numbers as the JSON rows did (0, or NULL where the column is Nullable)', () => {
    const bytes = encodeSpanRowsRowBinary([spanRow(0, { duration_ms: Number.NaN, cost: Infinity, time_to_first_token_ms: Number.NaN, input_tokens: Infinity, output_tokens: 1e30 })]);
    const r = new Reader(bytes);
    const values = new Map<string, unknown>();
    for (const c of SPAN_COLUMNS) {
      const type = SPAN_COLUMN_TYPES[c];
      if (type === 'String' || type === 'LowCardinality(String)') values.set(c, r.string());
      else if (type === 'Float64') values.set(c, (r.pos += 8, bytes.readDoubleLE(r.pos - 8)));
      else if (type === 'Nullable(Float64)') values.set(c, bytes[r.pos++] === 1 ? null : (r.pos += 8, bytes.readDoubleLE(r.pos - 8)));
      else if (type === 'UInt64') values.set(c, r.uint64());
      else if (type.startsWith('DateTime64')) values.set(c, r.int64());
      else if (type.startsWith('Array')) values.set(c, Array.from({ length: r.varUInt() }, () => r.string()));
      else values.set(c, Object.fromEntries(Array.from({ length: r.varUInt() }, () => [r.string(), r.string()])));
    }
    expect(r.pos).toBe(bytes.length);
    expect(values.get('duration_ms')).toBe(0);
    expect(values.get('cost')).toBe(0);
    expect(values.get('time_to_first_token_ms')).toBeNull();
    expect(values.get('input_tokens')).toBe(0n);
    expect(values.get('output_tokens')).toBe(18_446_744_073_709_551_615n);
    expect(values.get('attributes')).toEqual({ a: 'b', 'ключ': 'значение' });
    expect(values.get('start_time')).toBe(1_767_607_200_123_456_789n);
  });
});
