/**
 * A minimal protobuf wire-format reader for the hot decoding path.
 *
 * Unlike a generated decoder it never allocates for numbers (64-bit values land
 * in `lo`/`hi`), and every read is bounds-checked against the end of the
 * message currently being read (`limit`), not just the end of the buffer, so a
 * nested message cannot claim bytes of its parent. All failures are thrown as
 * OtlpDecodeError with a message for the sender's developer.
 */
import { Buffer } from 'node:buffer';
import { OtlpDecodeError } from './errors.ts';
import { base64Slice, hexSlice, utf8Slice } from './buffer-slices.ts';
import { cachedUtf8 } from './string-cache.ts';

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
const WIRE_SGROUP = 3;
const WIRE_EGROUP = 4;
export const WIRE_I32 = 5;

const WIRE_TYPE_NAMES = ['varint', 'i64', 'length-delimited', 'start-group', 'end-group', 'i32'];

export function protobufError(message: string): OtlpDecodeError {
  return new OtlpDecodeError('invalid protobuf: ' + message);
}

export class WireReader {
  readonly buf: Buffer;
  /** Offset of the next byte to read. */
  pos = 0;
  /** End (exclusive) of the message being read. */
  limit: number;
  /** Result halves of the last varint64()/fixed64() read, as unsigned 32-bit numbers. */
  lo = 0;
  hi = 0;

  constructor(bytes: Uint8Array) {
    // A view over the same memory: no copy.
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.limit = bytes.byteLength;
  }

  private outOfRange(length: number): OtlpDecodeError {
    return protobufError(`index out of range: ${this.pos} + ${length} > ${this.limit}`);
  }

  /** Reads a varint, keeping its low 32 bits (as protobuf does for 32-bit fields). */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    // Fast path: a 1-byte varint (field tags and most small values).
    if (pos < this.limit) {
      const b = buf[pos]!;
      if (b < 0x80) {
        this.pos = pos + 1;
        return b;
      }
    }
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (pos >= this.limit) throw this.outOfRange(1);
      const b = buf[pos++]!;
      if (shift < 32) value |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return value >>> 0;
      }
    }
    this.pos = pos;
    throw protobufError(`varint longer than 10 bytes at offset ${pos - 10}`);
  }

  /** Reads a varint of up to 64 bits into lo/hi. */
  varint64(): void {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (pos >= this.limit) throw this.outOfRange(1);
      const b = buf[pos++]!;
      const bits = b & 0x7f;
      if (i < 4) {
        lo |= bits << (7 * i);
      } else if (i === 4) {
        // Byte 5 straddles the halves: 4 bits to lo, 3 bits to hi.
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else {
        hi |= bits << (7 * i - 32);
      }
      if (b < 0x80) {
        this.pos = pos;
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    this.pos = pos;
    throw protobufError(`varint longer than 10 bytes at offset ${pos - 10}`);
  }

  /** Reads a little-endian fixed64 into lo/hi. */
  fixed64(): void {
    if (this.pos + 8 > this.limit) throw this.outOfRange(8);
    this.lo = this.buf.readUInt32LE(this.pos);
    this.hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
  }

  double(): number {
    if (this.pos + 8 > this.limit) throw this.outOfRange(8);
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /**
   * Reads the length prefix of a length-delimited field and returns the end of
   * its payload; pos is left at the payload's start.
   */
  lengthEnd(): number {
    const length = this.uint32();
    // Lengths are at most 2^31 - 1; uint32() already dropped higher bits, so
    // treat anything past the signed range as out of range too.
    if (length > this.limit - this.pos) throw this.outOfRange(length);
    return this.pos + length;
  }

  string(): string {
    const end = this.lengthEnd();
    const value = utf8Slice(this.buf, this.pos, end);
    this.pos = end;
    return value;
  }

  /**
   * A string that is likely to repeat across spans (attribute keys, names):
   * returns a shared string object for bytes seen before.
   */
  cachedString(): string {
    const end = this.lengthEnd();
    const value = cachedUtf8(this.buf, this.pos, end);
    this.pos = end;
    return value;
  }

  /** A bytes field as lowercase hex (ids). */
  hex(): string {
    const end = this.lengthEnd();
    const value = hexSlice(this.buf, this.pos, end);
    this.pos = end;
    return value;
  }

  /** A bytes field as base64 (attribute values). */
  base64(): string {
    const end = this.lengthEnd();
    const value = base64Slice(this.buf, this.pos, end);
    this.pos = end;
    return value;
  }

  /**
   * Starts reading an embedded message: returns the enclosing message's limit,
   * to be handed back to leaveMessage() once the embedded one is read.
   */
  enterMessage(): number {
    const end = this.lengthEnd();
    const outer = this.limit;
    this.limit = end;
    return outer;
  }

  leaveMessage(outerLimit: number): void {
    // Decoders loop while pos < limit and every read is bounded by limit, so
    // pos === limit here; the check guards against a decoder bug.
    if (this.pos !== this.limit) throw protobufError(`message did not end at offset ${this.limit}`);
    this.limit = outerLimit;
  }

  /** Skips a field's value (unknown fields are allowed and ignored). */
  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint64();
        return;
      case WIRE_I64:
        this.skipBytes(8);
        return;
      case WIRE_LEN:
        this.pos = this.lengthEnd();
        return;
      case WIRE_SGROUP:
        this.skipGroup();
        return;
      case WIRE_I32:
        this.skipBytes(4);
        return;
      default:
        throw protobufError(`invalid wire type ${wireType} at offset ${this.pos - 1}`);
    }
  }

  private skipBytes(count: number): void {
    if (this.pos + count > this.limit) throw this.outOfRange(count);
    this.pos += count;
  }

  /** Skips a (deprecated) group up to its end-group tag; nested groups are skipped iteratively. */
  private skipGroup(): void {
    let depth = 1;
    while (depth > 0) {
      const tag = this.uint32();
      const wireType = tag & 7;
      if (wireType === WIRE_SGROUP) depth++;
      else if (wireType === WIRE_EGROUP) depth--;
      else this.skip(wireType);
    }
  }
}

/** Thrown when a known field arrives with a wire type other than the one its type requires. */
export function wrongWireType(
  message: string,
  field: string,
  tag: number,
  expected: number,
): OtlpDecodeError {
  const actual = tag & 7;
  return protobufError(
    `${message}.${field} (field ${tag >>> 3}) has wire type ${actual}` +
      ` (${WIRE_TYPE_NAMES[actual] ?? 'invalid'}), expected ${expected} (${WIRE_TYPE_NAMES[expected]})`,
  );
}
