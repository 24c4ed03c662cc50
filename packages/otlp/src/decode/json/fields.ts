/**
 * Typed readers for the scalar fields of OTLP/JSON, following proto3 JSON
 * rules: a missing field or an explicit null means the default value; 64-bit
 * integers may be strings or numbers; enums may be numbers or names. A value of
 * the wrong type fails with the field's path.
 */
import { Buffer } from 'node:buffer';
import type { JsonPath } from './path.ts';
import { parseUint64 } from '../int64.ts';

export type JsonObject = { readonly [key: string]: unknown };

const EMPTY: readonly unknown[] = Object.freeze([]);

export function readString(value: unknown, path: JsonPath, field: string): string {
  if (typeof value === 'string') return value;
  if (value == null) return '';
  return path.fail(field, 'expected a string');
}

/**
 * A trace or span id: hex per the OTLP/JSON spec. Kept as sent (lowercased)
 * even when it is not valid hex, so that validation rejects only that span.
 */
export function readId(value: unknown, path: JsonPath, field: string): string {
  if (typeof value === 'string') return value.toLowerCase();
  if (value == null) return '';
  return path.fail(field, 'expected a hex string');
}

/** A fixed64/uint64 (timestamps) as a canonical decimal string. */
export function readUint64(value: unknown, path: JsonPath, field: string): string {
  if (value == null) return '0';
  return parseUint64(value) ?? path.fail(field, 'expected an unsigned 64-bit integer');
}

/** A uint32 (dropped counts), as a number or a decimal string. */
export function readUint32(value: unknown, path: JsonPath, field: string): number {
  if (value == null) return 0;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffffffff) return n;
  return path.fail(field, 'expected an unsigned 32-bit integer');
}

/**
 * An enum given as a number or by name. Numbers outside the known range read
 * as 0 (unspecified), as in the protobuf decoder, since proto3 enums are open;
 * an unknown name is an error because it can only be a typo.
 */
export function readEnum(
  value: unknown,
  path: JsonPath,
  field: string,
  names: ReadonlyMap<string, number>,
  max: number,
): number {
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return value >= 0 && value <= max ? value : 0;
  } else if (typeof value === 'string') {
    const n = names.get(value);
    if (n !== undefined) return n;
  } else if (value == null) {
    return 0;
  }
  return path.fail(field, `expected one of ${[...names.keys()].join(', ')} or its number`);
}

export function readBool(value: unknown, path: JsonPath, field: string): boolean {
  if (typeof value === 'boolean') return value;
  return path.fail(field, 'expected true or false');
}

/** A double; proto3 JSON also allows numeric strings and "NaN"/"Infinity"/"-Infinity". */
export function readDouble(value: unknown, path: JsonPath, field: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    if (value === 'NaN') return NaN;
    if (value === 'Infinity') return Infinity;
    if (value === '-Infinity') return -Infinity;
    const n = value.trim() === '' ? NaN : Number(value);
    if (Number.isFinite(n)) return n;
  }
  return path.fail(field, 'expected a number');
}

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/** Bytes as base64 (standard or URL-safe, padded or not), normalized to padded standard base64. */
export function readBytes(value: unknown, path: JsonPath, field: string): string {
  if (typeof value === 'string' && BASE64.test(value) && value.length % 4 !== 1) {
    return Buffer.from(value, 'base64').toString('base64');
  }
  return path.fail(field, 'expected a base64 string');
}

export function readArray(value: unknown, path: JsonPath, field: string): readonly unknown[] {
  if (Array.isArray(value)) return value;
  if (value == null) return EMPTY;
  return path.fail(field, 'expected an array');
}

/** An embedded message; undefined when absent. */
export function readObject(value: unknown, path: JsonPath, field: string): JsonObject | undefined {
  if (value == null) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return value as JsonObject;
  return path.fail(field, 'expected an object');
}

/** An element of a repeated message field (the path already ends in its index); null is not allowed. */
export function readElement(value: unknown, path: JsonPath): JsonObject {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JsonObject;
  return path.fail(undefined, 'expected an object');
}
