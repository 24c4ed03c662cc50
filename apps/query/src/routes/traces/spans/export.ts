import { Hono } from 'hono';
import type { AuthEnv } from '@aos/http';
import { chooseTraces, listExportSpans, type SpanExportCursor, type SpanExportRow, type Storage, type TraceCursor, type TraceFilter } from '@aos/storage';
import { SPAN_EXPORT_COLUMNS, exportEncoding, exportWriter } from '../../../exports/export-format.ts';
import { EXPORT_SLICE_BUDGET, exportResponse, planExport, type ExportRouteDeps } from '../../../exports/export-request.ts';
import { encodeRows } from '../../../exports/export-stream.ts';
import { keysetChunks, nestedChunks } from '../../../exports/keyset-chunks.ts';

/**
 * Spans read from storage at a time. A chunk is materialized whole by the engine and then
 * written out, so this bounds a span export's memory: typically a few MB, at worst (inputs
 * and outputs at the attribute size limit) a few hundred.
 */
export const EXPORT_CHUNK_SIZE = 1000;

/**
 * GET /traces/spans/export: the spans of the traces matching the trace filter. Traces are
 * taken a chunk at a time in start order; each chunk's spans follow in (start time, trace
 * id, span id) order. Expects `requireKey(..., 'read')` to have run.
 */
export function spanExportRoutes(deps: ExportRouteDeps) {
  const app = new Hono<AuthEnv>();
  const chunkSize = deps.chunkSize ?? EXPORT_CHUNK_SIZE;
  app.get('/', (c) =>
    exportResponse(c, deps, 'spans', (filter, format) => ({
      chunks: encodeRows(spanChunks(deps.storage, filter, chunkSize), exportWriter(format, SPAN_EXPORT_COLUMNS)),
      encoding: exportEncoding(format, SPAN_EXPORT_COLUMNS),
    })),
  );
  return app;
}

/**
 * The traces of a span export, as ids: slice by slice, each slice's traces chosen in start
 * order in one read (the figures are not needed, only which traces and in what order),
 * then handed on a chunk at a time.
 */
async function* traceIdChunks(storage: Storage, filter: TraceFilter, chunkSize: number): AsyncGenerator<string[]> {
  const { rollups, slices } = await planExport(storage, filter, { ...EXPORT_SLICE_BUDGET, maxTextBytes: Infinity });
  for (const slice of slices) {
    const pages = keysetChunks<string, TraceCursor>(async (limit, after) => {
      const page = await chooseTraces(storage, slice, { limit, sortBy: 'startTime', order: 'asc', after }, rollups);
      return { rows: page.chosen.map((t) => t.trace_id), next: page.next };
    }, EXPORT_SLICE_BUDGET.maxTraces);
    for await (const traceIds of pages) {
      for (let i = 0; i < traceIds.length; i += chunkSize) yield traceIds.slice(i, i + chunkSize);
    }
  }
}

/**
 * The spans of the matching traces: one chunk of traces at a time, then that chunk's spans
 * a page at a time. Paging the spans of known trace ids avoids re-running the trace filter's
 * aggregation for every page of spans.
 */
function spanChunks(storage: Storage, filter: TraceFilter, chunkSize: number): AsyncIterable<SpanExportRow[]> {
  return nestedChunks(traceIdChunks(storage, filter, chunkSize), (traceIds) =>
    keysetChunks<SpanExportRow, SpanExportCursor>(async (limit, after) => {
      const page = await listExportSpans(storage, filter, traceIds, { limit, after });
      return { rows: page.spans, next: page.next };
    }, chunkSize),
  );
}
