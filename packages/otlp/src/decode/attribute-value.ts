/**
 * Rules for attribute values shared by both decoders, so that the same OTLP
 * data decodes to the same AttributeValue whatever its encoding.
 */
import type { AttributeValue } from '../types.ts';

/**
 * How deeply arrays/kvlists may nest inside an attribute value. Real
 * instrumentation stays within a handful of levels; the limit keeps a hostile
 * body from exhausting the stack of the recursive decoders.
 */
export const MAX_VALUE_DEPTH = 64;

/**
 * A double as a JSON-safe value: NaN and ±Infinity (which JSON cannot carry)
 * become the strings proto3 JSON uses for them, "NaN", "Infinity", "-Infinity".
 */
export function finiteOrName(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

/**
 * Sets one attribute, last value winning for duplicate keys. A "__proto__" key
 * would change the object's prototype under plain assignment, so it is
 * defined as an own property instead.
 */
export function setAttribute(
  target: { [key: string]: AttributeValue },
  key: string,
  value: AttributeValue,
): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
