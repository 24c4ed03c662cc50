/** @aos/domain: turning decoded OTLP spans into stored span rows. */
export { spanRowsFromExport, type NormalizeContext } from './normalize.ts';
export { foldLogRecords, isSpanLogEvent, type JoinableSpan, type SpanEventRecord } from './span-log-join.ts';
export { EVALUATION_RESULT_EVENT, telemetryScoreOf, telemetryScoresOf, type EvaluationEvent, type TelemetryScore } from './evaluation-results.ts';
export { genAiMetricAttributes, isGenAiMetric, type GenAiMetricAttributes } from './genai-metrics.ts';
export {
  JOINED_FIELDS,
  type JoinedField,
  SPAN_TYPES,
  SPAN_STATUSES,
  SPAN_QUALITY_FLAGS,
  TRACE_TREE_QUALITY_FLAGS,
  type SpanRow,
  type SpanType,
  type SpanStatus,
  type SpanQualityFlag,
} from './span-row.ts';
export { loadPriceTable, findModelPrice, type PriceTable, type PriceMatch } from './prices.ts';
export { loadPrices } from './prices-file.ts';
export type { ModelPrice } from './model-prices.ts';
export { SNAPSHOT_SUFFIX_RUN, distinctModels } from './model-name.ts';
export { COST_DECIMALS, roundCost, roundCostOrNull } from './cost-rounding.ts';
export {
  DIMENSION_KEY_PATTERN,
  MAX_DIMENSION_VALUE_CHARS,
  METADATA_JSON_ATTRIBUTE,
  METADATA_PREFIXES,
  dimensionValues,
} from './dimensions.ts';
export { PROMOTED_COLUMNS, restoreAttributes, type PromotedColumn } from './promoted-attributes.ts';
export * from './messages/index.ts';
export {
  TRACE_FLAGS,
  DEFAULT_TRACE_FLAG_RULES,
  computeTraceFlags,
  type CostStats,
  type TraceFlag,
  type TraceFlagResult,
  type TraceFlagRules,
  type TraceStep,
} from './trace-flags.ts';
export {
  MONITOR_OPERATORS,
  MONITOR_STATES,
  NO_DATA_RULES,
  conditionProblem,
  judgeValue,
  thresholdFor,
  worstState,
  type MonitorCondition,
  type MonitorOperator,
  type MonitorState,
  type NoDataRule,
} from './monitor-rules.ts';
export {
  FINDING_SEVERITIES,
  RISK_METHOD,
  assessRisk,
  levelOf,
  likelihoodOf,
  type FindingSeverity,
  type RiskAssessment,
  type RiskInputs,
} from './risk-assessment.ts';
