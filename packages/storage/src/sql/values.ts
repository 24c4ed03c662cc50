/**
 * Conversions between JS values and the text forms ClickHouse parses without guessing.
 * A DateTime64 given as a bare integer is read as seconds or as ticks depending on its
 * digit count, so times always go in as decimal seconds ("1700000000.123").
 */

/** Milliseconds since the epoch → a DateTime64(3) parameter value. */
export function msToDateTimeParam(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const frac = String(ms - whole * 1000).padStart(3, '0');
  return `${whole}.${frac}`;
}

/** Nanoseconds since the epoch (decimal string) → a DateTime64(9) value. */
export function nanosToDateTimeValue(nanos: string): string {
  const padded = nanos.padStart(10, '0');
  return `${padded.slice(0, -9)}.${padded.slice(-9)}`;
}

/**
 * The last second formatted: the times of one answer (a trace's spans, a page of rows) are
 * mostly in order and close together, and formatting a Date was most of this function.
 */
let lastSecond = { seconds: '', iso: '' };

/** Nanoseconds since the epoch (decimal string, as ClickHouse returns it) → ISO 8601 with 9 fractional digits. */
export function nanosToIso(nanos: string): string {
  const padded = nanos.padStart(10, '0');
  const seconds = padded.slice(0, -9);
  if (seconds !== lastSecond.seconds) {
    lastSecond = { seconds, iso: new Date(Number(seconds) * 1000).toISOString().slice(0, 19) }; // 2026-01-01T00:00:00
  }
  return `${lastSecond.iso}.${padded.slice(-9)}Z`;
}

/**
 * A string constant of the code (a regular expression, a fixed label), never a value that
 * came from outside, as a ClickHouse string literal. Values from requests and rows go in as
 * bound parameters.
 */
export function sqlStringConstant(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
