/** Spans: writing them, one span in full, search across traces, span exports, deployment ids seen in spans, the GenAI event log records kept for them. */
export { SPAN_COLUMNS, encodeSpanRows, insertEncodedSpans, type SpanRowsFormat } from './writes.ts';
export { SPAN_COLUMN_TYPES, encodeSpanRowsRowBinary, spanRowBinaryRowCount } from './span-rowbinary.ts';
export { encodeSpanBatch, type EncodedSpanBatch } from './span-batch.ts';
export { getSpanDetail } from './detail.ts';
export type { SpanDetail, SpanEvent } from './detail.ts';
export { knownDeployments, registerDeployments } from './deployments.ts';
export { searchSpans } from './search.ts';
export type { SpanSearchPage, SpanSearchResult } from './search.ts';
export { listExportSpans } from './export.ts';
export type { SpanExportCursor, SpanExportPage, SpanExportRow } from './export.ts';
export { insertSpanLogRecords, readSpanLogRecords, readSpanRows, spanKey, spansWithLogRecords } from './log-records.ts';
export type { SpanKey } from './log-records.ts';
