/** The longest text copied unit by unit in JS rather than by Buffer.write (past it, a call into C++ costs less). */
const ASCII_COPY_MAX = 64;
/** The longest text, and the most texts, `recurringString` keeps the encoding of. */
const RECURRING_MAX_CHARS = 256;
const RECURRING_MAX_TEXTS = 4096;

/**
 * Values written in ClickHouse's RowBinary layout into one growing buffer, kept by its
 * owner and reused call after call: a batch of rows costs one exact-size copy (`take`),
 * not a buffer per row or per value (issue 33: fewer allocations, less garbage collection).
 */
export class RowBinaryWriter {
  #buf: Buffer;
  #pos = 0;
  /** Encodings (length and bytes) of texts that recur, by text: see `recurringString`. */
  readonly #recurring = new Map<string, Uint8Array>();

  constructor(initialBytes = 64 * 1024) {
    this.#buf = Buffer.allocUnsafe(initialBytes);
  }

  /** Starts a new batch, keeping the buffer (grown to the largest batch so far). */
  reset(): void {
    this.#pos = 0;
  }

  /**
   * The batch's bytes in a buffer of their own, exactly their size: not a slice of this
   * writer's buffer (which the next batch overwrites) nor of Node's shared pool (a buffer
   * posted to another thread copies its whole backing memory).
   */
  take(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.#pos);
    this.#buf.copy(out, 0, 0, this.#pos);
    return out;
  }

  #room(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + n));
    this.#buf.copy(next, 0, 0, this.#pos);
    this.#buf = next;
  }

  /** An unsigned LEB128 (RowBinary's lengths of strings, arrays and maps). */
  varUInt(v: number): void {
    this.#room(5);
    while (v >= 128) {
      this.#buf[this.#pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.#buf[this.#pos++] = v;
  }

  byte(v: number): void {
    this.#room(1);
    this.#buf[this.#pos++] = v;
  }

  /**
   * A String: its UTF-8 length as LEB128, then the bytes. The length's room is the widest
   * the text can need (3 bytes a UTF-16 unit), padded with continuation bytes when shorter
   * (ClickHouse's readVarUInt reads a padded LEB128), so the text is encoded once, in place.
   * Short texts are mostly ASCII (ids, keys, names): copied unit by unit in JS, which beats
   * a call into C++ up to a few dozen units; longer ones, and any text that is not ASCII,
   * go through Buffer.write.
   */
  string(s: string): void {
    const n = s.length;
    const max = n * 3;
    const width = max < 128 ? 1 : max < 16_384 ? 2 : max < 2_097_152 ? 3 : max < 268_435_456 ? 4 : 5;
    this.#room(width + max);
    const buf = this.#buf;
    const start = this.#pos + width;
    let len = n;
    if (n <= ASCII_COPY_MAX) {
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 127) {
          len = buf.write(s, start, 'utf8');
          break;
        }
        buf[start + i] = c;
      }
    } else {
      len = buf.write(s, start, 'utf8');
    }
    let p = this.#pos;
    this.#pos = start + len;
    for (let k = 1; k < width; k++, len = Math.floor(len / 128)) buf[p++] = (len % 128) | 128;
    buf[p] = len;
  }

  /**
   * A String whose text recurs from row to row (a LowCardinality value, a map key): its
   * encoding, kept from the first time, is copied (a lookup and a memcpy cost less than
   * encoding a text of a dozen chars or more again). The kept texts are bounded: all are
   * dropped when there are too many, so ever-new texts cost one encoding and a copy each.
   */
  recurringString(s: string): void {
    const known = this.#recurring.get(s);
    if (known !== undefined) {
      this.#room(known.length);
      this.#buf.set(known, this.#pos);
      this.#pos += known.length;
      return;
    }
    const start = this.#pos;
    this.string(s);
    if (s.length > RECURRING_MAX_CHARS) return;
    if (this.#recurring.size >= RECURRING_MAX_TEXTS) this.#recurring.clear();
    this.#recurring.set(s, new Uint8Array(this.#buf.subarray(start, this.#pos)));
  }

  /** A UInt64 (a whole number in [0, 2^64): every such integer a double holds is exact). */
  uint64(v: number | bigint): void {
    this.#room(8);
    if (typeof v === 'bigint') {
      this.#buf.writeBigUInt64LE(v, this.#pos);
    } else {
      const low = v % 4_294_967_296;
      this.#buf.writeUInt32LE(low, this.#pos);
      this.#buf.writeUInt32LE((v - low) / 4_294_967_296, this.#pos + 4);
    }
    this.#pos += 8;
  }

  float64(v: number): void {
    this.#room(8);
    this.#buf.writeDoubleLE(v, this.#pos);
    this.#pos += 8;
  }

  /**
   * A DateTime64(9) from decimal seconds ("1700000000.123456789", fewer decimals allowed):
   * the Int64 of nanoseconds, exact without BigInt (seconds × 1e9 passes 2^53, so the
   * product is split at 2^32 in two steps of 2^16).
   */
  dateTime64Nanos(text: string): void {
    const dot = text.indexOf('.');
    const seconds = wholeSecondsOf(text, dot < 0 ? text.length : dot);
    const nanos = dot < 0 ? 0 : nanosOf(text, dot);
    const high16 = Math.floor(seconds / 65_536);
    const a = high16 * 1e9; // × 2^16 still to apply
    const b = (seconds - high16 * 65_536) * 1e9 + nanos;
    const aHigh = Math.floor(a / 65_536);
    let low = (a - aHigh * 65_536) * 65_536 + (b % 4_294_967_296);
    let high = aHigh + Math.floor(b / 4_294_967_296);
    if (low >= 4_294_967_296) {
      low -= 4_294_967_296;
      high++;
    }
    this.#room(8);
    this.#buf.writeUInt32LE(low, this.#pos);
    this.#buf.writeUInt32LE(high, this.#pos + 4);
    this.#pos += 8;
  }
}

/*
 * Decimal seconds read digit by digit (no slices, no Number parsing: they showed in the
 * encoder's profile). Normalization writes plain digits; any other spelling goes through
 * Number, as all did before.
 */

/** The whole seconds: the text before `end` (its dot, or its length). */
function wholeSecondsOf(text: string, end: number): number {
  if (end === 0 || end > 15) return Number(text.slice(0, end));
  let seconds = 0;
  for (let i = 0; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(text.slice(0, end));
    seconds = seconds * 10 + d;
  }
  return seconds;
}

/** The nanoseconds: the first nine decimals after the dot, fewer padded with zeros. */
function nanosOf(text: string, dot: number): number {
  const last = Math.min(text.length, dot + 10);
  let nanos = 0;
  for (let i = dot + 1; i < last; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(text.slice(dot + 1, dot + 10).padEnd(9, '0'));
    nanos = nanos * 10 + d;
  }
  for (let i = last - dot - 1; i < 9; i++) nanos *= 10;
  return nanos;
}
