import type { Handler } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, requestIdOf, type AuthEnv } from '@aos/http';
import type { Logger } from '@aos/log';
import {
  EXPORT_FORMATS,
  chooseTraces,
  exactRollupHours,
  exportTraceRows,
  finishExport,
  listExportSpans,
  listExports,
  recordExport,
  traceExportMinutes,
  type ExportFormat,
  type ExportKind,
  type RolledUpHour,
  type SpanExportCursor,
  type SpanExportRow,
  type Storage,
  type TraceCursor,
  type TraceFilter,
} from '@aos/storage';
import { countRecords } from '../../exports/count-records.ts';
import { SPAN_EXPORT_COLUMNS, TRACE_EXPORT_COLUMNS, exportEncoding, exportWriter } from '../../exports/export-format.ts';
import { planExportSlices, type SliceBudget } from '../../exports/export-slices.ts';
import { encodeRows, exportBody, type EncodedChunk, type ExportOutcome } from '../../exports/export-stream.ts';
import { keysetChunks, nestedChunks } from '../../exports/keyset-chunks.ts';
import { limitParam } from '../../filters/pagination.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, readTraceFilter } from '../../filters/trace-filter.ts';

export interface ExportRouteDeps {
  storage: Storage;
  logger: Logger;
  /** Rows per storage read (traces per slice, spans per page); tests lower it to see paging. */
  chunkSize?: number;
}

/**
 * Spans read from storage at a time. A chunk is materialized whole by the engine and then
 * written out, so this bounds a span export's memory: typically a few MB, at worst (inputs
 * and outputs at the attribute size limit) a few hundred.
 */
export const EXPORT_CHUNK_SIZE = 1000;

/**
 * What one slice of a trace export may hold. The engine formats a slice's rows in one
 * result, and one slice is read ahead, so this bounds a trace export's memory: twice the
 * rows of 50,000 traces (about 25 MB) plus 32 MiB of inputs and outputs, more only when
 * one minute alone holds more.
 */
export const EXPORT_SLICE_BUDGET: SliceBudget = { maxTraces: 50_000, maxTextBytes: 32 * 2 ** 20 };

const exportParamsSchema = v.object({
  format: v.optional(v.picklist(EXPORT_FORMATS, `must be one of: ${EXPORT_FORMATS.join(', ')}`), 'csv'),
});

/**
 * GET /traces/export: the traces matching the trace filter, oldest first, as CSV or JSON
 * Lines (`format=csv|jsonl`). Expects `requireKey(..., 'read')` to have run.
 */
export function exportTracesHandler(deps: ExportRouteDeps): Handler<AuthEnv> {
  return exportHandler('traces', deps);
}

/**
 * GET /traces/spans/export: the spans of the traces matching the trace filter. Traces are
 * taken a chunk at a time in start order; each chunk's spans follow in (start time, trace
 * id, span id) order. Expects `requireKey(..., 'read')` to have run.
 */
export function exportSpansHandler(deps: ExportRouteDeps): Handler<AuthEnv> {
  return exportHandler('spans', deps);
}

function exportHandler(kind: ExportKind, deps: ExportRouteDeps): Handler<AuthEnv> {
  const chunkSize = deps.chunkSize ?? EXPORT_CHUNK_SIZE;
  return async (c) => {
    const query = queryParams(c.req.url, { single: [...TRACE_FILTER_PARAMS, 'format'], repeated: TRACE_FILTER_REPEATED_PARAMS });
    const { format } = parseOrThrow(exportParamsSchema, 'format' in query ? { format: query.format } : {}, 'export');
    const filter = await readTraceFilter(query, c.var.apiKey, deps.storage);
    const record = await recordExport(deps.storage, { projectId: filter.projectId, keyId: c.var.apiKey.id, kind, format, filter });
    const common = {
      logger: deps.logger,
      record,
      requestId: requestIdOf(c),
      finish: (outcome: ExportOutcome) => finishExport(deps.storage, record, outcome),
    };
    const { body, headers } = await exportBody({
      ...common,
      ...(kind === 'traces'
        ? {
            chunks: engineTraceChunks(deps.storage, filter, format, { ...EXPORT_SLICE_BUDGET, ...(deps.chunkSize ? { maxTraces: deps.chunkSize } : {}) }),
            encoding: exportEncoding(format, TRACE_EXPORT_COLUMNS),
          }
        : {
            chunks: encodeRows(spanChunks(deps.storage, filter, chunkSize), exportWriter(format, SPAN_EXPORT_COLUMNS)),
            encoding: exportEncoding(format, SPAN_EXPORT_COLUMNS),
          }),
    });
    return c.body(body, 200, headers);
  };
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

/**
 * The filter's window cut into slices within the budget (from the window's minutes that
 * have traces), and its rolled-up hours: asked once for the export, not once per slice.
 */
async function planExport(storage: Storage, filter: TraceFilter, budget: SliceBudget): Promise<{ rollups: RolledUpHour[]; slices: TraceFilter[] }> {
  const rollups = await exactRollupHours(storage, filter.projectId, filter);
  const minutes = await traceExportMinutes(storage, filter, rollups);
  return { rollups, slices: planExportSlices(filter, minutes, budget).map((slice) => ({ ...filter, ...slice })) };
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

const EXPORT_ID = /^exp_[0-9a-f]{24}$/;

const listParamsSchema = v.object({
  limit: limitParam(50),
  cursor: v.optional(v.string()),
  projectId: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
});

/**
 * GET /traces/exports: the project's exports, newest first, with who ran them, the filter,
 * the format, and how they ended. Paginated with `limit` and an opaque `cursor`.
 * Expects `requireKey(..., 'read')` to have run.
 */
export function listExportsHandler(deps: Pick<ExportRouteDeps, 'storage'>): Handler<AuthEnv> {
  return async (c) => {
    const query = queryParams(c.req.url, { single: ['limit', 'cursor', 'projectId'] });
    const params = parseOrThrow(listParamsSchema, query, 'pagination');
    const projectId = projectFor(c.var.apiKey, params.projectId);
    const afterId = params.cursor === undefined ? undefined : decodeExportCursor(params.cursor);
    const page = await listExports(deps.storage, projectId, { limit: params.limit, ...(afterId ? { afterId } : {}) });
    return c.json({
      data: page.exports,
      nextCursor: page.nextAfterId ? Buffer.from(page.nextAfterId).toString('base64url') : null,
    });
  };
}

function decodeExportCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (EXPORT_ID.test(id)) return id;
  throw new ApiError('invalid_request', 'invalid cursor: pass back the nextCursor of a previous page unchanged', [
    { field: 'cursor', message: 'not a cursor issued by this API' },
  ]);
}
