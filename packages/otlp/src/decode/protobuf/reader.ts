/**
 * What the protobuf decoder adds to protobufjs' Reader: narrowing to embedded
 * messages, and conversions of fields to this package's JSON-safe values.
 * Reading varints, lengths and bounds stays with protobufjs.
 */
import { Buffer } from 'node:buffer';
import protobuf from 'protobufjs';
import { base64Slice, hexSlice } from './buffer-slices.ts';
import { int64ToValue, uint64ToDecimal } from '../int64.ts';
import { protobufError } from './fields.ts';
import { cachedUtf8 } from './string-cache.ts';

/** protobufjs' reader over a Node Buffer (its typings only promise a Uint8Array). */
export type Reader = protobuf.BufferReader & { buf: Buffer };

/** A reader over body: a Buffer view of the same memory, so protobufjs picks its BufferReader (native UTF-8). */
export function createReader(body: Uint8Array): Reader {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new protobuf.BufferReader(buf) as Reader;
}

/**
 * Narrows the reader to the embedded message at its length prefix, as
 * protobufjs' generated decoders do (reader.len = end): every read inside is
 * then bounds-checked against the message's own end, so it cannot claim bytes
 * of its parent. Returns the enclosing end, for leave().
 */
export function enter(r: Reader): number {
  const length = r.uint32();
  if (length > r.len - r.pos) throw protobufError(`index out of range: ${r.pos} + ${length} > ${r.len}`);
  const outer = r.len;
  r.len = r.pos + length;
  return outer;
}

export function leave(r: Reader, outer: number): void {
  // The decoders loop while pos < len and reads cannot pass len, so pos ===
  // len here; the check guards against a decoder bug.
  if (r.pos !== r.len) throw protobufError(`message did not end at offset ${r.len}`);
  r.len = outer;
}

/**
 * Skips a length-delimited field (protobufjs checks its bounds) and returns
 * where its payload starts; it ends at r.pos. Lets the callers below convert
 * the bytes in place instead of through a Buffer slice per field.
 */
function skipPayload(r: Reader): number {
  const length = r.uint32();
  const start = r.pos;
  r.skip(length);
  return start;
}

/** A string likely to repeat across spans (attribute keys, names): a shared string for bytes seen before. */
export function cachedString(r: Reader): string {
  const start = skipPayload(r);
  return cachedUtf8(r.buf, start, r.pos);
}

/** A bytes field as lowercase hex (ids). */
export function hex(r: Reader): string {
  const start = skipPayload(r);
  return hexSlice(r.buf, start, r.pos);
}

/** A bytes field as base64 (attribute values). */
export function base64(r: Reader): string {
  const start = skipPayload(r);
  return base64Slice(r.buf, start, r.pos);
}

// protobufjs returns 64-bit values as Long objects (long is its dependency);
// their 32-bit halves convert exactly, without BigInt.

/** A fixed64 timestamp as a decimal string. */
export const uint64String = (v: protobuf.Long): string => uint64ToDecimal(v.low >>> 0, v.high >>> 0);

/** An int64 attribute value as a number when exact, else a decimal string. */
export const int64Value = (v: protobuf.Long): number | string => int64ToValue(v.low >>> 0, v.high >>> 0);
