/**
 * Arithmetic on OTLP nanosecond timestamps, which arrive as decimal strings because
 * they exceed 2^53. Splitting into whole milliseconds and the nanosecond remainder
 * keeps both halves exact as doubles and avoids BigInt on the hot path.
 */

/**
 * `Number(text.slice(from, to))` for a run of at most 15 decimal digits (exact as a double),
 * read in place: every span's times go through here, and a slice and a parse each cost more.
 * -1 for anything else, which the callers hand to Number as before.
 */
function digitsValue(text: string, from: number, to: number): number {
  if (to - from > 15) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/** Milliseconds since the epoch (whole part) of a nanosecond timestamp. */
export function nanosToMillis(nanos: string): number {
  if (nanos.length <= 6) return 0;
  const ms = digitsValue(nanos, 0, nanos.length - 6);
  return ms >= 0 ? ms : Number(nanos.slice(0, -6));
}

function remainderNanos(nanos: string): number {
  const from = nanos.length > 6 ? nanos.length - 6 : 0;
  const ns = digitsValue(nanos, from, nanos.length);
  return ns >= 0 ? ns : Number(nanos.slice(from));
}

/**
 * `later - earlier` in milliseconds, rounded to microseconds.
 * NaN when either string is not a number.
 */
export function diffMillis(earlier: string, later: string): number {
  const whole = nanosToMillis(later) - nanosToMillis(earlier);
  const fraction = (remainderNanos(later) - remainderNanos(earlier)) / 1e6;
  return Math.round((whole + fraction) * 1000) / 1000;
}

/** Span duration in ms; 0 for a missing end time or an end before the start (clock skew). */
export function durationMillis(start: string, end: string): number {
  if (end === '0' || end === '') return 0;
  const ms = diffMillis(start, end);
  return ms > 0 ? ms : 0;
}

/**
 * A nanosecond timestamp as decimal seconds ("1700000000.123456789"), the form a
 * DateTime64(9) column parses without guessing: a bare integer is read as seconds or as
 * ticks depending on how many digits it has.
 */
export function nanosToDecimalSeconds(nanos: string): string {
  const padded = nanos.padStart(10, '0');
  return `${padded.slice(0, -9)}.${padded.slice(-9)}`;
}
