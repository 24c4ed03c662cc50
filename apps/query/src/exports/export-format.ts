import type { ExportFormat, SpanExportRow, TraceRecord } from '@aos/storage';

/** A value an export writes: text, a number, nothing, or a list (joined with `|` in CSV). */
export type Cell = string | number | null | readonly string[];

/** The columns of a trace export, in order: the trace list's figures plus its input and output. */
export const TRACE_EXPORT_COLUMNS = [
  'traceId',
  'name',
  'startTime',
  'endTime',
  'durationMs',
  'status',
  'spanCount',
  'errorCount',
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'cost',
  'sessionId',
  'userId',
  'environment',
  'serviceName',
  'platform',
  'models',
  'input',
  'output',
] as const satisfies readonly (keyof TraceRecord)[];

/** The columns of a span export, in order. Attributes, events and links are not exported. */
export const SPAN_EXPORT_COLUMNS = [
  'traceId',
  'spanId',
  'parentSpanId',
  'name',
  'type',
  'kind',
  'startTime',
  'endTime',
  'durationMs',
  'status',
  'statusMessage',
  'model',
  'provider',
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'cost',
  'toolName',
  'sessionId',
  'userId',
  'qualityFlags',
  'input',
  'output',
] as const satisfies readonly (keyof SpanExportRow)[];

/**
 * A cell whose text starts with one of these is read as a formula by spreadsheets (CSV or
 * formula injection: `=HYPERLINK(...)`, `@SUM(...)`, `+cmd|...`). Such text is written with a
 * leading apostrophe, which spreadsheets show as plain text. This is OWASP's list (=, +, -,
 * @, tab, carriage return) plus line feed. Numbers are written as numbers and never escaped,
 * so a negative number stays a number.
 */
const FORMULA_START = /^[=+\-@\t\r\n]/;

/** One CSV cell: formula-escaped, then quoted as RFC 4180 asks when it holds `"`, `,`, CR or LF. */
export function csvCell(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = typeof value === 'string' ? value : value.join('|');
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record with its CRLF line break (RFC 4180). */
export function csvLine(cells: readonly Cell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** What a format puts around the rows: the media type, the file extension, and a header. */
export interface ExportEncoding {
  contentType: string;
  extension: string;
  /** Text written before the first row: the CSV header line; nothing for JSON Lines. */
  head: string;
}

/** The encoding of an export with the given columns: CSV with a header line, or JSON Lines. */
export function exportEncoding(format: ExportFormat, columns: readonly string[]): ExportEncoding {
  return format === 'csv'
    ? { contentType: 'text/csv; charset=utf-8', extension: 'csv', head: csvLine(columns) }
    : { contentType: 'application/x-ndjson', extension: 'jsonl', head: '' };
}

/** Turns rows into the text of an export in one format. */
export interface ExportWriter<R> extends ExportEncoding {
  /** The text of a chunk of rows. */
  rows(rows: readonly R[]): string;
}

/** A writer for rows with the given columns: CSV records or one JSON object per line. */
export function exportWriter<K extends string>(format: ExportFormat, columns: readonly K[]): ExportWriter<Record<K, Cell>> {
  const encoding = exportEncoding(format, columns);
  if (format === 'csv') {
    return { ...encoding, rows: (rows) => rows.map((row) => csvLine(columns.map((column) => row[column]))).join('') };
  }
  return {
    ...encoding,
    rows: (rows) =>
      rows.map((row) => `${JSON.stringify(Object.fromEntries(columns.map((column) => [column, row[column]])))}\n`).join(''),
  };
}
