// Span rows as CSV, for the engine write benchmark's format comparison only.
import type { SpanRow } from '@aos/domain';
import { SPAN_COLUMNS } from '@aos/storage';
import { tsvValue } from './tsv-rows.ts';

const csvString = (value: string) => `"${value.replaceAll('"', '""')}"`;

function csvValue(value: unknown): string {
  if (typeof value === 'string') return csvString(value);
  if (typeof value === 'number') return String(value);
  if (value === null) return '\\N';
  // Maps and arrays: their quoted literal, as one CSV field.
  return csvString(tsvValue(value));
}

export function encodeSpanRowsCsv(rows: readonly SpanRow[]): string {
  let body = '';
  for (const row of rows) body += `${SPAN_COLUMNS.map((c) => csvValue(row[c])).join(',')}\n`;
  return body;
}
