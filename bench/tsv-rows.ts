// Span rows as TabSeparated, for the engine write benchmark's format comparison (the
// writer keeps JSONCompactEachRow: docs/benchmarks.md, "Engine write").
import type { SpanRow } from '@aos/domain';
import { SPAN_COLUMNS } from '@aos/storage';

/**
 * ClickHouse's TabSeparated text for the values of a span row. Strings are escaped as the
 * format reads them (a backslash before `\`, tab, newline and carriage return); the
 * strings inside a Map or an Array are single-quoted, with `'` escaped as well.
 */

const FIELD_SPECIALS = /[\\\t\n\r]/;
const QUOTED_SPECIALS = /[\\\t\n\r']/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', "'": "\\'" };
const escapeChar = (c: string) => ESCAPES[c]!;

/** A String column's value. Most values need no escaping, so they are tested before replaced. */
function tsvString(value: string): string {
  return FIELD_SPECIALS.test(value) ? value.replace(/[\\\t\n\r]/g, escapeChar) : value;
}

function quoted(value: string): string {
  return `'${QUOTED_SPECIALS.test(value) ? value.replace(/[\\\t\n\r']/g, escapeChar) : value}'`;
}

/** A Map(String-like, String) value: `{'key':'value',…}`. */
function tsvMap(map: Readonly<Record<string, string>>): string {
  let text = '';
  for (const key in map) text += `${text === '' ? '' : ','}${quoted(key)}:${quoted(map[key]!)}`;
  return `{${text}}`;
}

/** An Array(String-like) value: `['a',…]`. */
function tsvArray(items: readonly string[]): string {
  return `[${items.map(quoted).join(',')}]`;
}

/** One column's value of a span row, by its JS type (strings, numbers, null, string arrays and maps are all a row holds). */
export function tsvValue(value: unknown): string {
  if (typeof value === 'string') return tsvString(value);
  if (typeof value === 'number') return String(value);
  if (value === null) return '\\N';
  if (Array.isArray(value)) return tsvArray(value as string[]);
  return tsvMap(value as Record<string, string>);
}

/**
 * One line per row, columns in SPAN_COLUMNS order. Each line is joined from its values and
 * the lines joined once: one flat string, where appending value by value left a rope of
 * ~100 pieces a row for the engine call to flatten (twice the encode time, measured).
 */
export function encodeSpanRowsTsv(rows: readonly SpanRow[]): string {
  if (rows.length === 0) return '';
  const values: string[] = new Array(SPAN_COLUMNS.length);
  const lines: string[] = new Array(rows.length + 1);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let i = 0; i < SPAN_COLUMNS.length; i++) values[i] = tsvValue(row[SPAN_COLUMNS[i]!]);
    lines[r] = values.join('\t');
  }
  // The last line ends with a newline too.
  lines[rows.length] = '';
  return lines.join('\n');
}
