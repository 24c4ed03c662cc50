import type { Handler } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, requestIdOf, type AuthEnv } from '@aos/http';
import type { Logger } from '@aos/log';
import {
  EXPORT_FORMATS,
  finishExport,
  listExportSpans,
  listExports,
  listTraces,
  recordExport,
  type ExportKind,
  type SpanExportCursor,
  type SpanExportRow,
  type Storage,
  type TraceCursor,
  type TraceFilter,
  type TraceRecord,
} from '@aos/storage';
import { SPAN_EXPORT_COLUMNS, TRACE_EXPORT_COLUMNS, exportWriter } from '../exports/export-format.ts';
import { exportBody, type ExportOutcome } from '../exports/export-stream.ts';
import { keysetChunks, nestedChunks } from '../exports/keyset-chunks.ts';
import { limitParam } from '../filters/pagination.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, readTraceFilter } from '../filters/trace-filter.ts';

export interface ExportRouteDeps {
  storage: Storage;
  logger: Logger;
  /** Rows per storage read (traces per page, spans per page); tests lower it to see paging. */
  chunkSize?: number;
}

/**
 * Rows read from storage at a time. A chunk is materialized whole by the engine and then
 * written out, so this bounds an export's memory: typically a few MB, at worst (inputs and
 * outputs at the attribute size limit) a few hundred.
 */
export const EXPORT_CHUNK_SIZE = 1000;

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
    const { body, headers } =
      kind === 'traces'
        ? await exportBody<TraceRecord>({
            ...common,
            chunks: traceChunks(deps.storage, filter, chunkSize),
            writer: exportWriter(format, TRACE_EXPORT_COLUMNS),
          })
        : await exportBody<SpanExportRow>({
            ...common,
            chunks: spanChunks(deps.storage, filter, chunkSize),
            writer: exportWriter(format, SPAN_EXPORT_COLUMNS),
          });
    return c.body(body, 200, headers);
  };
}

/** The matching traces in start order, keyset-paginated like the trace list. */
/**
 * Traces are read window slice by window slice: each page aggregates only its slice's spans,
 * so the cost of an export grows with its size, not with its size squared (a keyset page
 * over the whole window would re-aggregate the whole window every time). A trace belongs
 * to the slice its first span starts in, so slices partition the traces in start order.
 */
const EXPORT_SLICE_MS = 2 * 60 * 60 * 1000;

async function* traceChunks(storage: Storage, filter: TraceFilter, chunkSize: number): AsyncGenerator<TraceRecord[]> {
  for (let sliceStart = filter.startTimeMs; sliceStart < filter.endTimeMs; sliceStart += EXPORT_SLICE_MS) {
    const slice = { ...filter, startTimeMs: sliceStart, endTimeMs: Math.min(sliceStart + EXPORT_SLICE_MS, filter.endTimeMs) };
    yield* keysetChunks<TraceRecord, TraceCursor>(async (limit, after) => {
      const page = await listTraces(storage, slice, { limit, sortBy: 'startTime', order: 'asc', after });
      return { rows: page.traces, next: page.next };
    }, chunkSize);
  }
}

/**
 * The spans of the matching traces: one chunk of traces at a time, then that chunk's spans
 * a page at a time. Paging the spans of known trace ids avoids re-running the trace filter's
 * aggregation for every page of spans.
 */
function spanChunks(storage: Storage, filter: TraceFilter, chunkSize: number): AsyncIterable<SpanExportRow[]> {
  return nestedChunks(traceChunks(storage, filter, chunkSize), (traces) => {
    const traceIds = traces.map((t) => t.traceId);
    return keysetChunks<SpanExportRow, SpanExportCursor>(async (limit, after) => {
      const page = await listExportSpans(storage, filter, traceIds, { limit, after });
      return { rows: page.spans, next: page.next };
    }, chunkSize);
  });
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
