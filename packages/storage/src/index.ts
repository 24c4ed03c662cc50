export { isStorageUnavailable, openStorage, StorageUnavailableError } from './client.ts';
export type { RowFormat, Storage } from './client.ts';
export { migrate, loadMigrations, splitStatements } from './migrations.ts';
export { SPAN_COLUMNS, encodeSpanRows, insertEncodedSpans } from './span-writes.ts';
export { TRACE_SORT_FIELDS, chooseTraces, listTraces } from './traces.ts';
export { TRACE_RECORD_FIELDS } from './trace-record.ts';
export { STORED_PREVIEW_CHARS } from './chosen-traces.ts';
export type { TraceCursor, TracePage, TracePageRequest, TraceSortField } from './traces.ts';
export type { TraceRecord } from './trace-record.ts';
export { getSpanDetail } from './spans.ts';
export { getTraceWithSpans } from './trace-detail.ts';
export type { SpanSummary, SpanDetail, SpanEvent } from './spans.ts';
export type { TraceFilter } from './trace-filter.ts';
export {
  API_KEY_SCOPES,
  createApiKey,
  findApiKeyByHash,
  hashApiKey,
  listApiKeys,
  revokeApiKey,
} from './api-keys.ts';
export type { ApiKeyRecord, ApiKeyScope, CreatedApiKey } from './api-keys.ts';
export { knownDeployments, registerDeployments } from './deployments.ts';
export { SCORE_SOURCES, findScores, listScores, writeScoreVersions } from './scores.ts';
export type { ScoreDataType, ScorePage, ScoreRecord, ScoreSource, ScoreTarget } from './scores.ts';
export { summarizeScores } from './score-summary.ts';
export type { ScoreNameSummary, ScoreSummaryScope } from './score-summary.ts';
export { existingSessions, existingSpans, existingTraces } from './score-targets.ts';
export {
  SCORE_DATA_TYPES,
  ScoreConfigError,
  checkScoreAgainstConfig,
  createScoreConfig,
  findActiveScoreConfigs,
  findArchivedScoreConfigNames,
  getScoreConfig,
  listScoreConfigs,
  updateScoreConfig,
} from './score-configs.ts';
export type { ScoreConfig } from './score-configs.ts';
export { summarizeTraces } from './summaries.ts';
export type { TraceSummary } from './summaries.ts';
export { MAX_SESSION_SCORES, MAX_SESSION_TRACES, MAX_SESSION_USERS, getSession, listSessions } from './sessions.ts';
export type { SessionCursor, SessionDetail, SessionPage, SessionRecord } from './sessions.ts';
export { searchSpans } from './span-search.ts';
export type { SpanSearchFilter, SpanSearchPage, SpanSearchResult } from './span-search.ts';
export { GROUP_FIELDS, MEASURES, MEASURE_NAMES, groupByOf, groupSql, measureByName } from './measures.ts';
export type { GroupBy, GroupField, GroupName, Measure, MeasureName } from './measures.ts';
export { OTHER_GROUP, bucketStarts, queryTimeseries } from './timeseries.ts';
export type { TimeseriesPoint, TimeseriesRequest, TimeseriesSeries } from './timeseries.ts';
export { QUERY_FIELDS, QueryLanguageError, compileTraceQuery } from './query-language/index.ts';
export type { QueryField } from './query-language/index.ts';
export { EXPORT_FORMATS, EXPORT_KINDS, finishExport, listExports, recordExport } from './exports.ts';
export type { ExportFormat, ExportKind, ExportPage, ExportRecord, ExportStatus } from './exports.ts';
export { listExportSpans } from './export-spans.ts';
export type { SpanExportCursor, SpanExportPage, SpanExportRow } from './export-spans.ts';
export {
  QUIET_TRACE_LOOKBACK_MS,
  findQuietTraces,
  flagsOfTraces,
  getTraceFlags,
  loadTraceSteps,
  projectCostStats,
  writeTraceFlags,
} from './trace-flags.ts';
export type { QuietTrace, TraceFlagsRow, TraceSteps } from './trace-flags.ts';
export { getMaskingPolicy, saveMaskingPolicy } from './project-settings/masking-policies.ts';
export type { StoredMaskingPolicy } from './project-settings/masking-policies.ts';
export {
  MAX_DIMENSION_KEYS,
  DimensionLimitError,
  addDimensionKeys,
  discoverMetadataKeys,
  listDimensionKeys,
} from './project-settings/dimension-keys.ts';
export type { DimensionKey, MetadataKeyCandidate } from './project-settings/dimension-keys.ts';
export {
  MAX_TRACE_VIEWS,
  TraceViewConflictError,
  createTraceView,
  deleteTraceView,
  getTraceView,
  listTraceViews,
  updateTraceView,
} from './project-settings/trace-views.ts';
export type { TraceView, TraceViewInput } from './project-settings/trace-views.ts';
export { measureSource } from './timeseries.ts';
export { EVIDENCE_TRACES, MAX_MONITOR_GROUPS, groupSqlOf, queryMeasureValues, sampleTraceIds } from './monitor-values.ts';
export type { GroupValue, MeasureValueRequest } from './monitor-values.ts';
export { createMonitor, deleteMonitor, getMonitor, isMuted, listMonitors, listScheduledMonitors, saveMonitor } from './monitors.ts';
export type { MonitorDefinition, MonitorFilter, StoredMonitor } from './monitors.ts';
export {
  MONITOR_EVENT_KINDS,
  lastEvaluations,
  listMonitorEvents,
  monitorEventId,
  readGroupStates,
  writeAcknowledgements,
  writeGroupStates,
  writeMonitorEvents,
} from './monitor-states.ts';
export type { GroupState, GroupStateWrite, MonitorEvent, MonitorEventKind } from './monitor-states.ts';
export {
  FINDING_ASSET_TYPES,
  FINDING_MOVES,
  FINDING_STATUSES,
  FindingMoveError,
  INVESTIGATOR_KINDS,
  MAX_EVIDENCE,
  countFindings,
  findingHistory,
  getFinding,
  listFindings,
  raiseFinding,
  saveRiskAssessment,
  updateFinding,
} from './findings.ts';
export type { Finding, FindingAssetType, FindingChange, FindingQuery, FindingStatus, InvestigatorKind, RaiseFindingInput } from './findings.ts';
export { findingReach } from './finding-reach.ts';
export type { FindingReach } from './finding-reach.ts';
export { evaluateMonitor, measureMonitor, monitorWindowFilter } from './monitor-evaluation.ts';
export type { MeasuredGroup, MonitorEvaluation, MonitorMeasurement } from './monitor-evaluation.ts';
export { acknowledgeMonitor, muteMonitor, unmuteMonitor } from './monitor-actions.ts';
export {
  createEvaluator,
  deleteEvaluator,
  getEvaluator,
  getEvaluatorApiKey,
  listAutoRunEvaluators,
  listEvaluators,
  updateEvaluator,
} from './evaluators.ts';
export type { EvaluatorWrite, StoredEvaluator } from './evaluators.ts';
export { countEvaluationItems, evaluationItemKey, listEvaluationItems } from './evaluator-items.ts';
export type { EvaluationItem, EvaluationTarget, ItemSelection, SpanFilterFields } from './evaluator-items.ts';
export { loadEvaluationContext } from './evaluation-context.ts';
export type { ContextSpan, ContextTrace, EvaluationContext } from './evaluation-context.ts';
export {
  createBackfill,
  getBackfill,
  getBackfillProgress,
  judgedItemKeys,
  listBackfills,
  markBackfillCancelled,
  recordBackfillItems,
  writeBackfillProgress,
} from './evaluator-backfills.ts';
export type { BackfillOutcome, BackfillProgress, BackfillRecord, BackfillStatus, JudgedItem } from './evaluator-backfills.ts';
export { evaluatorScoreStats } from './evaluator-stats.ts';
export type { EvaluatorStats, EvaluatorStatsBucket } from './evaluator-stats.ts';
export { exportTraceRows, traceExportMinutes } from './trace-export.ts';
export type { ExportMinute, TraceExportColumn } from './trace-export.ts';
export { dropSupersededRollups, exactRollupHours, findDueRollupHours, rollUpHour } from './trace-rollups.ts';
export type { DueRollupHour, RolledUpHour } from './trace-rollups.ts';
