import type { Context } from 'hono';
import * as v from 'valibot';
import { parseOrThrow, queryParams, requestIdOf, type AuthEnv } from '@aos/http';
import type { Logger } from '@aos/log';
import {
  EXPORT_FORMATS,
  exactRollupHours,
  finishExport,
  recordExport,
  traceExportMinutes,
  type ExportFormat,
  type ExportKind,
  type RolledUpHour,
  type Storage,
  type TraceFilter,
} from '@aos/storage';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, parseTraceFilterCheckingDimensions } from '../filters/trace-filter.ts';
import { planExportSlices, type SliceBudget } from './export-slices.ts';
import type { ExportEncoding } from './export-format.ts';
import { exportBody, type EncodedChunk, type ExportOutcome } from './export-stream.ts';

export interface ExportRouteDeps {
  storage: Storage;
  logger: Logger;
  /** Rows per storage read (traces per slice, spans per page); tests lower it to see paging. */
  chunkSize?: number;
}

/**
 * What one slice of a trace export may hold. The engine formats a slice's rows in one
 * result, and one slice is read ahead, so this bounds a trace export's memory: twice the
 * rows of 50,000 traces (about 25 MB) plus 32 MiB of inputs and outputs, more only when
 * one minute alone holds more.
 */
export const EXPORT_SLICE_BUDGET: SliceBudget = { maxTraces: 50_000, maxTextBytes: 32 * 2 ** 20 };

export const exportParamsSchema = v.object({
  format: v.optional(v.picklist(EXPORT_FORMATS, `must be one of: ${EXPORT_FORMATS.join(', ')}`), 'csv'),
});

/** What an export streams: its rows, already encoded, and how they are framed. */
export interface ExportContent {
  chunks: AsyncIterable<EncodedChunk>;
  encoding: ExportEncoding;
}

/**
 * Answers an export request of either kind: reads `format` and the trace filter, records
 * the export as running, and streams what `content` gives, recording how it ended.
 * Expects `requireKey(..., 'read')` to have run.
 */
export async function exportResponse(
  c: Context<AuthEnv>,
  deps: ExportRouteDeps,
  kind: ExportKind,
  content: (filter: TraceFilter, format: ExportFormat) => ExportContent,
): Promise<Response> {
  const query = queryParams(c.req.url, { single: [...TRACE_FILTER_PARAMS, 'format'], repeated: TRACE_FILTER_REPEATED_PARAMS });
  const { format } = parseOrThrow(exportParamsSchema, 'format' in query ? { format: query.format } : {}, 'export');
  const filter = await parseTraceFilterCheckingDimensions(query, c.var.apiKey, deps.storage);
  const record = await recordExport(deps.storage, { projectId: filter.projectId, keyId: c.var.apiKey.id, kind, format, filter });
  const { body, headers } = await exportBody({
    logger: deps.logger,
    record,
    requestId: requestIdOf(c),
    finish: (outcome: ExportOutcome) => finishExport(deps.storage, record, outcome),
    ...content(filter, format),
  });
  return c.body(body, 200, headers);
}

/**
 * The filter's window cut into slices within the budget (from the window's minutes that
 * have traces), and its rolled-up hours: asked once for the export, not once per slice.
 */
export async function planExport(storage: Storage, filter: TraceFilter, budget: SliceBudget): Promise<{ rollups: RolledUpHour[]; slices: TraceFilter[] }> {
  const rollups = await exactRollupHours(storage, filter.projectId, filter);
  const minutes = await traceExportMinutes(storage, filter, rollups);
  return { rollups, slices: planExportSlices(filter, minutes, budget).map((slice) => ({ ...filter, ...slice })) };
}
