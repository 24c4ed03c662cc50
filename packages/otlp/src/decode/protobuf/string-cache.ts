/**
 * A small cache of decoded short ASCII strings, keyed by their bytes.
 *
 * Attribute keys repeat in every span ("gen_ai.usage.input_tokens", …). Decoding
 * each occurrence afresh costs a native call plus, when the new string is used
 * as a property name, a lookup in V8's string table. Returning the same string
 * object for the same bytes skips both: it is hashed and compared in JS, and it
 * is already internalized after its first use as a key.
 */
import type { Buffer } from 'node:buffer';
import { utf8Slice } from './buffer-slices.ts';

const MAX_CACHED_LENGTH = 64;
const TABLE_SIZE = 4096; // power of two
const table: (string | undefined)[] = new Array<string | undefined>(TABLE_SIZE).fill(undefined);

/** The UTF-8 string in buf[start, end), from the cache when it holds the same bytes. */
export function cachedUtf8(buf: Buffer, start: number, end: number): string {
  const length = end - start;
  if (length === 0) return '';
  if (length > MAX_CACHED_LENGTH) return utf8Slice(buf, start, end);
  // FNV-1a over the bytes, also collecting whether any byte is non-ASCII.
  let hash = 0x811c9dc5;
  let high = 0;
  for (let i = start; i < end; i++) {
    const b = buf[i]!;
    high |= b;
    hash = Math.imul(hash ^ b, 0x01000193);
  }
  // Only ASCII is cached: then one byte is one UTF-16 unit, so comparing the
  // bytes with the cached string's char codes is an exact equality test.
  if (high & 0x80) return utf8Slice(buf, start, end);
  const slot = (hash ^ (hash >>> 15)) & (TABLE_SIZE - 1);
  const cached = table[slot];
  if (cached !== undefined && cached.length === length) {
    let i = 0;
    while (i < length && cached.charCodeAt(i) === buf[start + i]) i++;
    if (i === length) return cached;
  }
  const decoded = utf8Slice(buf, start, end);
  table[slot] = decoded;
  return decoded;
}
