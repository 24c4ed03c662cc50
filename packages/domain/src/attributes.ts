/**
 * Attribute values as text: flattening, size limits and "first present key" lookups.
 * Lookups read the typed OTLP attributes so numbers stay numbers; only the stored
 * maps are flattened to strings.
 */
import type { AttributeValue, Attributes } from '@aos/otlp';
import type { Promotion } from './promoted-attributes.ts';

/** Strings as they are, everything else (numbers, booleans, arrays, maps, null) as JSON. */
export function valueToText(value: AttributeValue): string {
  if (typeof value === 'string') return value;
  // The text JSON.stringify gives, without its general machinery: most other values are numbers.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(0);

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character.
 * Returns undefined when the text already fits (the common case, kept allocation-free).
 */
export function truncateUtf8(text: string, maxBytes: number): string | undefined {
  // One UTF-16 unit never needs more than 3 UTF-8 bytes, so short strings skip the byte count.
  if (text.length * 3 <= maxBytes) return undefined;
  // Every UTF-16 unit needs at least one byte, so only strings this short can still fit.
  if (text.length <= maxBytes && Buffer.byteLength(text, 'utf8') <= maxBytes) return undefined;
  if (scratch.length < maxBytes) scratch = new Uint8Array(maxBytes);
  // encodeInto stops before a character that would not fit whole; `read` counts UTF-16 units.
  const { read } = encoder.encodeInto(text, scratch.subarray(0, maxBytes));
  return text.slice(0, read);
}

/** Applies the per-value size limit for one span and remembers whether anything was cut. */
export class ValueLimiter {
  truncated = false;
  constructor(readonly maxBytes: number) {}

  limit(text: string): string {
    const cut = truncateUtf8(text, this.maxBytes);
    if (cut === undefined) return text;
    this.truncated = true;
    return cut;
  }
}

/**
 * Flattens attributes to a map of (size-limited) strings, the form stored in ClickHouse;
 * values `promotion` takes are left out (stored once, as their column: promoted-attributes.ts).
 */
export function flattenAttributes(attributes: Attributes, limiter: ValueLimiter, promotion?: Promotion): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    const text = limiter.limit(valueToText(value));
    if (promotion !== undefined && promotion.take(key, text)) continue;
    // A plain assignment to "__proto__" would change the prototype instead of storing the value.
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: text, enumerable: true, writable: true, configurable: true });
    } else {
      out[key] = text;
    }
  }
  return out;
}

/** A number from a numeric attribute or a numeric string (int64 values arrive as strings). */
export function toNumber(value: AttributeValue | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Text of one key, or undefined when it is absent, null or empty. */
export function textOf(attributes: Attributes, key: string): string | undefined {
  const value = attributes[key];
  if (value === undefined || value === null || value === '') return undefined;
  return valueToText(value);
}

/** Text of the first key that is present and not empty. */
export function firstText(attributes: Attributes, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const text = textOf(attributes, key);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The first key holding a usable number. */
export function firstNumber(attributes: Attributes, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const n = toNumber(attributes[key]);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** Lower-cased string value of one key, for enum-like attributes (kinds, operation names). */
export function lowerText(attributes: Attributes, key: string): string | undefined {
  const value = attributes[key];
  return typeof value === 'string' && value !== '' ? value.toLowerCase() : undefined;
}
