/** Per-project settings: masking policy, metadata dimension keys, saved trace views, retention. */
export { getMaskingPolicy, saveMaskingPolicy } from './masking-policies.ts';
export type { StoredMaskingPolicy } from './masking-policies.ts';
export {
  MAX_DIMENSION_KEYS,
  DimensionLimitError,
  addDimensionKeys,
  discoverMetadataKeys,
  listDimensionKeys,
} from './dimension-keys.ts';
export type { DimensionKey, MetadataKeyCandidate } from './dimension-keys.ts';
export {
  MAX_TRACE_VIEWS,
  TraceViewConflictError,
  createTraceView,
  deleteTraceView,
  getTraceView,
  listTraceViews,
  updateTraceView,
} from './trace-views.ts';
export type { TraceView, TraceViewInput } from './trace-views.ts';
export { getRetentionOverride, listRetentionOverrides, saveRetentionOverride } from './retention.ts';
export type { RetentionOverride } from './retention.ts';
