export { isStorageUnavailable, openStorage, StorageUnavailableError } from './client.ts';
export type { RowFormat, Storage } from './client.ts';
export { migrate, loadMigrations, splitStatements } from './migrations.ts';
export { SPAN_COLUMNS, encodeSpanRows, insertEncodedSpans } from './span-writes.ts';
export { listTraces, getTraceRecord } from './traces.ts';
export type { TraceRecord, TraceCursor, TracePage, TracePageRequest } from './traces.ts';
export { listTraceSpans, getSpanDetail } from './spans.ts';
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
