/** Traces: the filter of traces and spans every read shares, the span as the API shows it, trace figures and rollups, lists, detail, summary, timeseries, flags, exports and the query language. */
export { TRACE_SORT_FIELDS, chooseTraces, isTraceCursor, listTraces } from './list.ts';
export { TRACE_RECORD_FIELDS } from './record.ts';
export { STORED_PREVIEW_CHARS } from './chosen.ts';
export type { TraceCursor, TracePage, TracePageRequest, TraceSortField } from './list.ts';
export type { TraceRecord } from './record.ts';
export { getTraceWithSpans } from './detail.ts';
export type { SpanFilter, SpanFilterFields, TraceFilter } from './filter.ts';
export { summarizeTraces } from './summary.ts';
export type { TraceSummary } from './summary.ts';
export { GROUP_FIELDS, MEASURES, MEASURE_NAMES, groupByOf, groupSql, measureByName } from './measures.ts';
export type { GroupBy, GroupField, GroupName, Measure, MeasureName } from './measures.ts';
export { OTHER_GROUP, bucketStarts, measureSource, queryTimeseries } from './timeseries.ts';
export type { TimeseriesPoint, TimeseriesRequest, TimeseriesSeries } from './timeseries.ts';
export { QUERY_FIELDS, QueryLanguageError, compileTraceQuery } from './query-language/index.ts';
export type { QueryField } from './query-language/index.ts';
export {
  QUIET_TRACE_LOOKBACK_MS,
  findQuietTraces,
  flagsOfTraces,
  getTraceFlags,
  loadTraceSteps,
  projectCostStats,
  writeTraceFlags,
} from './flags.ts';
export type { QuietTrace, TraceFlagsRow, TraceSteps } from './flags.ts';
export { EXPORT_FORMATS, exportTraceRows, traceExportMinutes } from './export.ts';
export type { ExportFormat, ExportMinute, TraceExportColumn } from './export.ts';
export { dropSupersededRollups, exactRollupHours, findDueRollupHours, rollUpHours, rollupRuns } from './rollups.ts';
export type { DueRollupHour, RolledUpHour } from './rollups.ts';
export type { ApiSpan } from './api-span.ts';
