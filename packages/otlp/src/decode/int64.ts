/**
 * 64-bit integer conversions without BigInt or Long allocations.
 *
 * OTLP timestamps are fixed64 nanoseconds (~1.7e18, well past 2^53), so they
 * are carried as exact decimal strings. Attribute int64 values become plain
 * numbers when they fit in a double exactly and decimal strings otherwise.
 */

const TWO_POW_32 = 4294967296;
/** hi halves up to this value keep hi * 2^32 + lo <= Number.MAX_SAFE_INTEGER. */
const MAX_SAFE_HI = 0x1fffff;

/**
 * The unsigned 64-bit value hi * 2^32 + lo as a decimal string.
 *
 * Splits the value into base-1e9 "digits" with exact double arithmetic:
 * with hi = a * 2^16 + b, the value is a * 2^48 + b * 2^32 + lo, and
 * 2^48 = 281474 * 1e9 + 976710656, 2^32 = 4 * 1e9 + 294967296, so the low
 * digit sum stays below 2^53 and the high digit below 2^35.
 */
export function uint64ToDecimal(lo: number, hi: number): string {
  if (hi <= MAX_SAFE_HI) return String(hi * TWO_POW_32 + lo);
  const a = hi >>> 16;
  const b = hi & 0xffff;
  let low = a * 976710656 + b * 294967296 + lo;
  const carry = Math.floor(low / 1e9);
  low -= carry * 1e9;
  const high = a * 281474 + b * 4 + carry;
  return String(high) + String(low).padStart(9, '0');
}

/** A two's complement int64 as a number when exactly representable, else a decimal string. */
export function int64ToValue(lo: number, hi: number): number | string {
  if ((hi & 0x80000000) === 0) {
    return hi <= MAX_SAFE_HI ? hi * TWO_POW_32 + lo : uint64ToDecimal(lo, hi);
  }
  // Negate to get the magnitude: invert and add one, carrying into hi.
  const mLo = (~lo + 1) >>> 0;
  const mHi = (~hi + (mLo === 0 ? 1 : 0)) >>> 0;
  return mHi <= MAX_SAFE_HI ? -(mHi * TWO_POW_32 + mLo) : '-' + uint64ToDecimal(mLo, mHi);
}

const UINT64_MAX = '18446744073709551615';
const INT64_MAX = '9223372036854775807';
const INT64_MIN_MAGNITUDE = '9223372036854775808';

/** True when the digit string a (no leading zeros) is <= b (no leading zeros). */
function digitsAtMost(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a <= b;
}

function isDigits(text: string, from: number): boolean {
  if (from >= text.length) return false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function stripLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return i === 0 ? digits : digits.slice(i);
}

/** A JSON uint64 (decimal string or number) as a canonical decimal string, or undefined if it is none. */
export function parseUint64(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (!isDigits(value, 0)) return undefined;
    const digits = stripLeadingZeros(value);
    return digitsAtMost(digits, UINT64_MAX) ? digits : undefined;
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value >= 18446744073709551616) return undefined;
    // String() prints the shortest digits that round-trip ("1152921504606847000"
    // for 2^60); BigInt gives the double's exact integer value.
    return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
  }
  return undefined;
}

/** A JSON int64 (decimal string or number) as an attribute value, or undefined if it is none. */
export function parseInt64(value: unknown): number | string | undefined {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < -9223372036854775808 || value >= 9223372036854775808) {
      return undefined;
    }
    return Number.isSafeInteger(value) ? value : BigInt(value).toString();
  }
  if (typeof value !== 'string') return undefined;
  const negative = value.charCodeAt(0) === 45; // '-'
  if (!isDigits(value, negative ? 1 : 0)) return undefined;
  const digits = stripLeadingZeros(negative ? value.slice(1) : value);
  if (!digitsAtMost(digits, negative ? INT64_MIN_MAGNITUDE : INT64_MAX)) return undefined;
  if (digits.length <= 15) return negative ? -Number(digits) || 0 : Number(digits);
  const n = Number(digits);
  if (Number.isSafeInteger(n)) return negative ? -n : n;
  return negative ? '-' + digits : digits;
}
