import type { Handler } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, requestIdOf, type AuthEnv } from '@aos/http';
import type { Logger } from '@aos/log';
import {
  EXPORT_FORMATS,
  finishExport,
  listExportSpans,
  listExports,
  addTraceTexts,
  listTracesInWindow,
  tracesPerDay,
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
            chunks: traceChunks(deps.storage, filter, chunkSize, true),
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

/**
 * Traces are read window slice by window slice: each read aggregates only its slice's spans,
 * so the cost of an export grows with its size, not with its size squared (a keyset page
 * over the whole window would re-aggregate the whole window every time). A trace belongs
 * to the slice its first span starts in, so slices partition the traces in start order.
 * A slice's figures come in one read (light rows); the heavy input and output then follow
 * a chunk at a time, so memory stays bounded by one slice of figures plus one chunk.
 */
const FIGURES_PAGE = 50_000;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

async function* traceChunks(storage: Storage, filter: TraceFilter, chunkSize: number, withTexts: boolean): AsyncGenerator<TraceRecord[]> {
  for (const slice of await exportSlices(storage, filter)) {
    const figures = keysetChunks<TraceRecord, TraceCursor>(async (limit, after) => {
      const page = await listTracesInWindow(storage, slice, { limit, sortBy: 'startTime', order: 'asc', after, withoutTexts: true });
      return { rows: page.traces, next: page.next };
    }, FIGURES_PAGE);
    for await (const traces of figures) {
      for (let i = 0; i < traces.length; i += chunkSize) {
        const chunk = traces.slice(i, i + chunkSize);
        if (withTexts) await addTraceTexts(storage, filter.projectId, chunk);
        yield chunk;
      }
    }
  }
}

/**
 * The export's window cut into slices of about FIGURES_PAGE traces at most. Spans are
 * sorted by day in storage, so a day is the cheapest slice to read: a day that holds few
 * enough traces is one slice; a busier one is cut into hours (each read then scans the
 * day, but returns a bounded number of rows).
 */
async function exportSlices(storage: Storage, filter: TraceFilter): Promise<TraceFilter[]> {
  const perDay = await tracesPerDay(storage, filter);
  const slices: TraceFilter[] = [];
  for (let day = Math.floor(filter.startTimeMs / DAY_MS) * DAY_MS; day < filter.endTimeMs; day += DAY_MS) {
    const traces = perDay.get(day);
    if (traces === undefined) continue; // no span that day, so no trace starts on it
    const pieces = Math.min(24, Math.max(1, Math.ceil(traces / FIGURES_PAGE)));
    const step = Math.ceil(24 / pieces) * HOUR_MS;
    for (let from = day; from < day + DAY_MS; from += step) {
      const startTimeMs = Math.max(from, filter.startTimeMs);
      const endTimeMs = Math.min(from + step, day + DAY_MS, filter.endTimeMs);
      if (startTimeMs < endTimeMs) slices.push({ ...filter, startTimeMs, endTimeMs });
    }
  }
  return slices;
}

/**
 * The spans of the matching traces: one chunk of traces at a time, then that chunk's spans
 * a page at a time. Paging the spans of known trace ids avoids re-running the trace filter's
 * aggregation for every page of spans.
 */
function spanChunks(storage: Storage, filter: TraceFilter, chunkSize: number): AsyncIterable<SpanExportRow[]> {
  return nestedChunks(traceChunks(storage, filter, chunkSize, false), (traces) => {
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
