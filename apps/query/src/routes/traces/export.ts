import { Hono } from 'hono';
import type { AuthEnv } from '@aos/http';
import { exportTraceRows, type ExportFormat, type Storage, type TraceFilter } from '@aos/storage';
import { countRecords } from '../../exports/count-records.ts';
import { TRACE_EXPORT_COLUMNS, exportEncoding } from '../../exports/export-format.ts';
import { EXPORT_SLICE_BUDGET, exportResponse, planExport, type ExportRouteDeps } from '../../exports/export-request.ts';
import type { SliceBudget } from '../../exports/export-slices.ts';
import type { EncodedChunk } from '../../exports/export-stream.ts';

/**
 * GET /traces/export: the traces matching the trace filter, oldest first, as CSV or JSON
 * Lines (`format=csv|jsonl`). Expects `requireKey(..., 'read')` to have run.
 */
export function traceExportRoutes(deps: ExportRouteDeps) {
  const app = new Hono<AuthEnv>();
  const budget = { ...EXPORT_SLICE_BUDGET, ...(deps.chunkSize ? { maxTraces: deps.chunkSize } : {}) };
  app.get('/', (c) =>
    exportResponse(c, deps, 'traces', (filter, format) => ({
      chunks: engineTraceChunks(deps.storage, filter, format, budget),
      encoding: exportEncoding(format, TRACE_EXPORT_COLUMNS),
    })),
  );
  return app;
}

/**
 * A trace export, slice by slice of its window: the engine aggregates and formats each
 * slice's traces in one query (the rows never become objects here), oldest first. A trace
 * belongs to the slice its first span starts in, so slices partition the traces in start
 * order; each slice's size is bounded by the budget (see planExportSlices).
 */
async function* engineTraceChunks(storage: Storage, filter: TraceFilter, format: ExportFormat, budget: SliceBudget): AsyncGenerator<EncodedChunk> {
  const { rollups, slices } = await planExport(storage, filter, budget);
  const read = (slice: TraceFilter) => exportTraceRows(storage, slice, format, TRACE_EXPORT_COLUMNS, rollups);
  // One slice read ahead: the engine formats the next slice while this one goes out, so
  // memory holds two slices at most.
  let next = slices[0] ? read(slices[0]) : undefined;
  try {
    for (let i = 0; next; i++) {
      const data = await next;
      next = slices[i + 1] ? read(slices[i + 1]!) : undefined;
      const rows = countRecords(format, data);
      if (rows > 0) yield { rows, data };
    }
  } finally {
    // An export cut short leaves its read-ahead to finish unheard.
    next?.catch(() => {});
  }
}
