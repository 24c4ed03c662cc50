// Span rows as RowBinary, for the engine write benchmark's insert-path comparison (issue 33:
// does a binary format pay end to end, JS encode plus engine CPU?). Bench only: the writer
// keeps JSONCompactEachRow through a file (docs/benchmarks.md, "Engine write").
import type { SpanRow } from '@aos/domain';
import { SPAN_COLUMNS } from '@aos/storage';

/** How each column of `spans` is laid out in RowBinary (its type in migrations 0001-0017). */
type Kind = 'string' | 'time' | 'float' | 'uint' | 'nullableFloat' | 'map' | 'array';
const KINDS: Partial<Record<(typeof SPAN_COLUMNS)[number], Kind>> = {
  start_time: 'time', end_time: 'time', duration_ms: 'float', cost: 'float',
  input_tokens: 'uint', output_tokens: 'uint', total_tokens: 'uint', cached_input_tokens: 'uint', reasoning_tokens: 'uint', ingested_at: 'uint',
  time_to_first_token_ms: 'nullableFloat',
  attributes: 'map', attribute_refs: 'map', resource_attributes: 'map', dimensions: 'map',
  quality_flags: 'array', masked_rules: 'array', log_record_fields: 'array',
};
const LAYOUT = SPAN_COLUMNS.map((c) => [c, KINDS[c] ?? 'string'] as const);

/** Node's Buffer has utf8Write (what buf.write(s, offset, 'utf8') calls after checking its arguments), untyped. */
type Utf8Writable = Buffer & { utf8Write(s: string, offset: number): number };

/** A growing output buffer: the rows are written once, the buffer doubled when they outgrow it. */
class Out {
  buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  room(n: number) {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  varint(v: number) {
    this.room(5);
    while (v >= 128) {
      this.buf[this.pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }
  /** LEB128 length, then UTF-8; the length is padded to the widest the text can need, so the text is encoded once in place (the engine reads a padded LEB128). */
  string(s: string) {
    const max = s.length * 3;
    const width = max < 128 ? 1 : max < 16_384 ? 2 : max < 2_097_152 ? 3 : 4;
    this.room(width + max);
    if (width === 1) {
      // Short texts (keys, ids, names) are mostly ASCII: copied byte by byte, no call into C++.
      const buf = this.buf;
      const start = this.pos + 1;
      let p = start;
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c > 127) break;
        buf[p++] = c;
      }
      if (i < s.length) p = start + (buf as Utf8Writable).utf8Write(s, start);
      buf[this.pos] = p - start;
      this.pos = p;
      return;
    }
    let len = (this.buf as Utf8Writable).utf8Write(s, this.pos + width);
    let p = this.pos;
    this.pos += width + len;
    for (let k = 0; k < width - 1; k++, len >>>= 7) this.buf[p++] = (len & 127) | 128;
    this.buf[p] = len;
  }
  uint64(v: number) {
    this.room(8);
    const lo = v % 4_294_967_296;
    this.buf.writeUInt32LE(lo, this.pos);
    this.buf.writeUInt32LE((v - lo) / 4_294_967_296, this.pos + 4);
    this.pos += 8;
  }
  float64(v: number) {
    this.room(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }
  /** DateTime64(9) from "seconds.nanoseconds": the Int64 of nanoseconds, exact, without BigInt. */
  time(text: string) {
    const dot = text.indexOf('.');
    const seconds = Number(dot < 0 ? text : text.slice(0, dot));
    const nanos = dot < 0 ? 0 : Number(text.slice(dot + 1).padEnd(9, '0'));
    // seconds × 1e9 split at 2^32 without passing 2^53: high = ⌊s × 1e9 / 2^32⌋ in two steps.
    const high16 = Math.floor(seconds / 65_536);
    const a = high16 * 1e9; // × 2^16 later
    const b = (seconds - high16 * 65_536) * 1e9 + nanos;
    const aHigh = Math.floor(a / 65_536);
    let low = (a - aHigh * 65_536) * 65_536 + (b % 4_294_967_296);
    let high = aHigh + Math.floor(b / 4_294_967_296);
    if (low >= 4_294_967_296) {
      low -= 4_294_967_296;
      high++;
    }
    this.room(8);
    this.buf.writeUInt32LE(low, this.pos);
    this.buf.writeUInt32LE(high, this.pos + 4);
    this.pos += 8;
  }
}

/** RowBinary of span rows in SPAN_COLUMNS order. */
export function encodeSpanRowsRowBinary(rows: readonly SpanRow[]): Buffer {
  const out = new Out(rows.length * 2_048 + 1_024);
  for (const row of rows) {
    for (const [column, kind] of LAYOUT) {
      const value = row[column] as unknown;
      if (kind === 'string') out.string(value as string);
      else if (kind === 'time') out.time(value as string);
      else if (kind === 'float') out.float64(value as number);
      else if (kind === 'uint') out.uint64(value as number);
      else if (kind === 'nullableFloat') {
        out.room(1);
        out.buf[out.pos++] = value === null ? 1 : 0;
        if (value !== null) out.float64(value as number);
      } else if (kind === 'array') {
        const items = value as readonly string[];
        out.varint(items.length);
        for (const item of items) out.string(item);
      } else {
        const map = value as Readonly<Record<string, string>>;
        const keys = Object.keys(map);
        out.varint(keys.length);
        for (const key of keys) {
          out.string(key);
          out.string(map[key]!);
        }
      }
    }
  }
  return out.buf.subarray(0, out.pos);
}
