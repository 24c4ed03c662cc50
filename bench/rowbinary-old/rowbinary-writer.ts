/**
 * Values written in ClickHouse's RowBinary layout into one growing buffer, kept by its
 * owner and reused call after call: a batch of rows costs one exact-size copy (`take`),
 * not a buffer per row or per value (issue 33: fewer allocations, less garbage collection).
 */
export class RowBinaryWriter {
  #buf: Buffer;
  #pos = 0;

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
   */
  string(s: string): void {
    const max = s.length * 3;
    if (max < 128) {
      this.#room(1 + max);
      // Short texts (keys, ids, names) are mostly ASCII: copied unit by unit, no call into C++.
      const buf = this.#buf;
      const start = this.#pos + 1;
      let p = start;
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c > 127) break;
        buf[p++] = c;
      }
      if (i < s.length) p = start + buf.write(s, start, 'utf8');
      buf[this.#pos] = p - start;
      this.#pos = p;
      return;
    }
    let width = 1;
    while (max >= 2 ** (7 * width)) width++;
    this.#room(width + max);
    let len = this.#buf.write(s, this.#pos + width, 'utf8');
    let p = this.#pos;
    this.#pos += width + len;
    for (let k = 0; k < width - 1; k++, len = Math.floor(len / 128)) this.#buf[p++] = (len % 128) | 128;
    this.#buf[p] = len;
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
    const seconds = Number(dot < 0 ? text : text.slice(0, dot));
    const nanos = dot < 0 ? 0 : Number(text.slice(dot + 1, dot + 10).padEnd(9, '0'));
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
