/**
 * Fast conversions of a byte range of a Node Buffer to a string.
 *
 * Node's Buffer has undocumented but long-standing per-encoding methods
 * (utf8Slice, hexSlice, base64Slice) that skip the encoding-name dispatch of
 * buf.toString(); for the short strings of span data (attribute keys, ids)
 * that dispatch is a third of the cost. Fall back to toString() if a runtime
 * lacks them.
 */
import { Buffer } from 'node:buffer';

type Slice = (this: Buffer, start: number, end: number) => string;

interface NativeSlices {
  utf8Slice?: Slice;
  hexSlice?: Slice;
  base64Slice?: Slice;
}

const native = Buffer.prototype as unknown as NativeSlices;

function pick(method: Slice | undefined, encoding: BufferEncoding): Slice {
  return (
    method ??
    function (this: Buffer, start: number, end: number): string {
      return this.toString(encoding, start, end);
    }
  );
}

const utf8 = pick(native.utf8Slice, 'utf8');
const hex = pick(native.hexSlice, 'hex');
const base64 = pick(native.base64Slice, 'base64');

/** UTF-8 text; invalid sequences become U+FFFD (lenient, like most collectors' JSON paths). */
export function utf8Slice(buf: Buffer, start: number, end: number): string {
  return start === end ? '' : utf8.call(buf, start, end);
}

/** Lowercase hex, two characters per byte. */
export function hexSlice(buf: Buffer, start: number, end: number): string {
  return start === end ? '' : hex.call(buf, start, end);
}

/** Standard base64 with padding. */
export function base64Slice(buf: Buffer, start: number, end: number): string {
  return start === end ? '' : base64.call(buf, start, end);
}
