import * as v from 'valibot';
import { FINDING_SEVERITIES, MONITOR_STATES, TRACE_FLAGS } from '@aos/domain';
import { ERROR_CODES, type ErrorCode } from '@aos/http';
import {
  API_KEY_SCOPES,
  EXPORT_FORMATS,
  FINDING_ASSET_TYPES,
  FINDING_STATUSES,
  INVESTIGATOR_KINDS,
  SCORE_DATA_TYPES,
} from '@aos/storage';

/**
 * The bodies the API answers with, for the OpenAPI document. Requests are described by the
 * schemas the routes validate with; answers are built from storage records, so they are
 * described here, field by field, and the integration tests check every JSON answer they
 * get against these (test/support/openapi-check.ts).
 */

const text = v.string();
const nullableText = v.nullable(v.string());
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const time = v.pipe(v.string(), v.isoTimestamp());
const nullableTime = v.nullable(time);
const textMap = v.record(v.string(), v.string());
const anyObject = v.record(v.string(), v.unknown());
const usd = v.pipe(v.number(), v.description('USD, rounded to 1e-10'));

/** The one error shape of the API. */
export const errorEnvelope = v.object({
  error: v.object({
    code: v.picklist(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    message: text,
    /** Present when there is something to point at: each field in question and what is wrong with it. */
    details: v.optional(v.array(v.object({ field: v.optional(text), message: text }))),
    requestId: text,
  }),
});

/** A page of a list: its rows and the cursor of the next page (null on the last). */
export function page<S extends v.GenericSchema>(row: S) {
  return v.object({ data: v.array(row), nextCursor: nullableText });
}

/** A list answered whole. */
export function list<S extends v.GenericSchema>(row: S) {
  return v.object({ data: v.array(row) });
}

export const deleted = v.object({ id: text, deleted: v.literal(true) });
export const health = v.object({ status: v.literal('ok') });
export const ready = v.object({ status: v.literal('ready'), checks: v.record(v.string(), v.literal('ok')) });

const traceFlags = v.nullable(v.array(v.picklist(TRACE_FLAGS)));

/** Tokens (input includes cached, output includes reasoning) and cost, of a span or summed over a trace. */
const usage = {
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  cachedInputTokens: count,
  reasoningTokens: count,
  cost: usd,
};

/** A trace and its figures, as a session lists it. */
export const trace = v.object({
  traceId: text,
  name: text,
  startTime: time,
  endTime: time,
  durationMs: v.number(),
  status: v.picklist(['ok', 'error', 'unset']),
  spanCount: count,
  errorCount: count,
  ...usage,
  sessionId: nullableText,
  userId: nullableText,
  environment: nullableText,
  serviceName: nullableText,
  platform: nullableText,
  models: v.array(text),
  flaggedSpanCount: count,
  maskedSpanCount: count,
  input: text,
  output: text,
});

/** A row of the trace list: previews of input and output, and its trace flags (null until judged). */
export const traceListItem = v.object({ projectId: text, ...trace.entries, flags: traceFlags });

const spanFields = {
  spanId: text,
  parentSpanId: nullableText,
  name: text,
  kind: text,
  type: text,
  startTime: time,
  endTime: time,
  durationMs: v.number(),
  status: v.picklist(['ok', 'error', 'unset']),
  statusMessage: text,
  serviceName: text,
  model: nullableText,
  provider: nullableText,
  ...usage,
  costSource: nullableText,
  toolName: nullableText,
  agentName: nullableText,
  timeToFirstTokenMs: v.nullable(v.number()),
  qualityFlags: v.array(text),
  maskedRules: v.array(text),
};

/** A span as the tree of a trace shows it, with its children. */
export const spanNode = v.object({
  ...spanFields,
  children: v.array(v.lazy((): v.GenericSchema => spanNode)),
});

export const traceDetail = v.object({
  projectId: text,
  ...trace.entries,
  flags: traceFlags,
  flagDetails: v.nullable(textMap),
  spans: v.array(spanNode),
});

/** A row of GET /traces/spans. */
export const spanListItem = v.object({ ...spanFields, traceId: text });

const messagePart = v.pipe(
  v.looseObject({ type: v.picklist(['text', 'reasoning', 'tool_call', 'tool_call_response', 'uri', 'file', 'blob']) }),
  v.description('A part of a message: text, reasoning, a tool call or its response, media by reference, or inline media replaced by its size'),
);
const message = v.object({
  role: v.picklist(['system', 'user', 'assistant', 'tool']),
  parts: v.array(messagePart),
  name: v.optional(text),
  finishReason: v.optional(text),
});

export const spanDetail = v.object({
  projectId: text,
  ...spanFields,
  traceId: text,
  environment: nullableText,
  platform: nullableText,
  scope: v.object({ name: text, version: text }),
  input: text,
  output: text,
  inputMessages: v.array(message),
  outputMessages: v.array(message),
  systemInstructions: v.array(messagePart),
  sessionId: nullableText,
  userId: nullableText,
  toolArguments: nullableText,
  toolCallId: nullableText,
  attributes: textMap,
  resourceAttributes: textMap,
  dimensions: textMap,
  events: v.array(v.looseObject({ name: text })),
  links: v.array(v.unknown()),
});

const quantile = v.nullable(v.number());
export const traceSummary = v.object({
  traceCount: count,
  spanCount: count,
  errorCount: count,
  errorRate: v.number(),
  sessionCount: count,
  userCount: count,
  latencyMs: v.object({ p50: quantile, p90: quantile, p95: quantile, p99: quantile }),
  cost: v.object({ total: usd, mean: v.nullable(usd) }),
  tokens: v.object({ input: count, output: count, total: count, cachedInput: count, reasoning: count }),
  flaggedSpanCount: count,
  maskedSpanCount: count,
  maskedRuleCounts: v.record(v.string(), count),
  flaggedTraceCount: count,
  traceFlagCounts: v.record(v.string(), count),
  window: v.object({ startTime: time, endTime: time }),
});

const sessionFields = {
  sessionId: text,
  firstActivity: time,
  lastActivity: time,
  traceCount: count,
  durationMs: v.number(),
  cost: usd,
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  errorCount: count,
  users: v.array(text),
};

export const sessionListItem = v.object({ projectId: text, ...sessionFields });

export const score = v.object({
  id: text,
  projectId: text,
  traceId: nullableText,
  spanId: nullableText,
  sessionId: nullableText,
  name: text,
  dataType: v.picklist(SCORE_DATA_TYPES),
  value: v.nullable(v.union([v.number(), v.boolean()])),
  stringValue: nullableText,
  comment: text,
  source: text,
  externalId: nullableText,
  deploymentId: v.nullable(v.number()),
  configId: nullableText,
  ownerKeyId: text,
  evaluatorId: nullableText,
  evaluatorVersion: v.nullable(v.number()),
  createdAt: time,
  updatedAt: time,
});

export const sessionDetail = v.object({
  projectId: text,
  ...sessionFields,
  traces: v.array(trace),
  tracesTruncated: v.boolean(),
  scores: v.array(score),
  scoresTruncated: v.boolean(),
});

export const timeseries = v.object({
  measure: text,
  intervalSeconds: v.number(),
  groupBy: nullableText,
  series: v.array(v.object({ group: nullableText, points: v.array(v.object({ time: time, value: v.nullable(v.number()) })) })),
});

export const queryField = v.object({ name: text, type: text, operators: v.array(text), description: text, example: text });

export const exportRecord = v.object({
  id: text,
  projectId: text,
  keyId: text,
  kind: v.picklist(['traces', 'spans']),
  format: v.picklist(EXPORT_FORMATS),
  filter: anyObject,
  status: v.picklist(['running', 'completed', 'failed']),
  rows: count,
  bytes: count,
  error: nullableText,
  startedAt: time,
  finishedAt: nullableTime,
});

export const scoreSummaryRow = v.object({
  name: text,
  count: count,
  mean: v.nullable(v.number()),
  min: v.nullable(v.number()),
  max: v.nullable(v.number()),
  labels: v.record(v.string(), count),
});

export const scoreConfig = v.object({
  id: text,
  projectId: text,
  name: text,
  dataType: v.picklist(SCORE_DATA_TYPES),
  min: v.nullable(v.number()),
  max: v.nullable(v.number()),
  categories: v.nullable(v.array(text)),
  description: text,
  archived: v.boolean(),
  createdAt: time,
  updatedAt: time,
  createdBy: text,
});

export const apiKey = v.object({
  id: text,
  projectId: text,
  name: text,
  prefix: text,
  scopes: v.array(v.picklist(API_KEY_SCOPES)),
  createdAt: time,
  revokedAt: nullableTime,
});
export const createdApiKey = v.object({ ...apiKey.entries, secret: v.pipe(text, v.description('Shown once: only its hash is stored')) });

export const deadLetter = v.object({
  jobId: text,
  projectId: text,
  spanCount: v.nullable(count),
  receivedAt: nullableTime,
  failedAt: nullableTime,
  attempts: count,
  cause: v.pipe(
    v.picklist(['invalid_batch', 'stalled', 'rows_refused', 'rows_missing', 'storage_error']),
    v.description('rows_refused: the engine refused the rows themselves (see refusal); rows_missing: the rows were gone from Redis before they were stored'),
  ),
  refusal: v.pipe(v.nullable(v.picklist(['parse', 'type', 'size'])), v.description('With rows_refused: unreadable rows, a value not fitting its column, or a value too large')),
  reason: text,
});
export const retried = v.object({ retried: count });
export const removed = v.object({ removed: count });

const maskingRule = v.looseObject({
  name: text,
  detector: v.optional(text),
  pattern: v.optional(text),
  replacement: v.optional(v.looseObject({ style: v.picklist(['type_tag', 'fixed', 'keep_last', 'hash']) })),
  fields: v.optional(anyObject),
});
/** A masking policy: its rules in order (docs/api.md, "Masking"; packages/masking/README.md has every field). */
export const maskingPolicy = v.object({ rules: v.array(maskingRule) });
export const maskingPolicyBody = v.object({
  projectId: text,
  policy: maskingPolicy,
  updatedAt: nullableTime,
  updatedBy: nullableText,
  detectors: v.array(text),
});
export const maskingTestResult = v.object({
  masked: text,
  matches: v.array(v.object({ rule: text, detector: v.optional(text), start: count, end: count })),
});

const dimensionKey = v.object({ key: text, addedAt: time, addedBy: text });
export const dimensionList = v.object({
  data: v.array(dimensionKey),
  maxKeys: count,
  suggestions: v.optional(
    v.object({
      since: time,
      sampledSpans: count,
      keys: v.array(v.object({ key: text, spans: count, share: v.number(), examples: v.array(text) })),
    }),
  ),
});
export const dimensionsAdded = v.object({
  added: v.array(text),
  alreadyPresent: v.array(text),
  data: v.array(dimensionKey),
  note: text,
});

const days = v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('days; null: kept for ever')));
export const retention = v.object({
  projectId: text,
  days,
  defaultDays: days,
  override: v.nullable(v.object({ days, updatedAt: time, updatedBy: text })),
});

export const traceView = v.object({
  id: text,
  projectId: text,
  name: text,
  description: text,
  filter: v.record(v.string(), v.union([v.string(), v.array(v.string())])),
  sort: v.object({ field: text, order: v.picklist(['asc', 'desc']) }),
  columns: v.array(text),
  owner: text,
  createdAt: time,
  updatedAt: time,
});

const monitorState = v.picklist(MONITOR_STATES);
export const monitorMetric = v.object({ name: text, unit: text, description: text, needsScoreName: v.boolean() });
export const monitor = v.looseObject({
  id: text,
  projectId: text,
  name: text,
  description: text,
  measure: text,
  scoreName: nullableText,
  filter: anyObject,
  groupBy: nullableText,
  windowSeconds: count,
  intervalSeconds: count,
  condition: v.looseObject({ operator: v.picklist(['above', 'below']), threshold: v.number() }),
  severity: v.picklist(FINDING_SEVERITIES),
  enabled: v.boolean(),
  unit: text,
  webhook: v.nullable(v.object({ url: text, secretHint: text })),
  muted: v.boolean(),
  mutedUntil: nullableTime,
  state: v.nullable(monitorState),
  lastEvaluatedAt: nullableTime,
  acknowledged: v.boolean(),
  groups: v.array(
    v.object({ group: text, state: monitorState, value: v.nullable(v.number()), since: time, acknowledged: v.boolean(), evaluatedAt: time }),
  ),
  createdAt: time,
  updatedAt: time,
  createdBy: text,
});
export const acknowledgedMonitor = v.looseObject({ ...monitor.entries, acknowledgedGroups: v.array(text) });
export const monitorPreview = v.looseObject({
  measure: text,
  unit: text,
  value: v.nullable(v.number()),
  state: monitorState,
  windowStart: time,
  windowEnd: time,
  groups: v.array(v.object({ group: text, value: v.nullable(v.number()), traces: count, state: monitorState })),
});
export const monitorEvent = v.object({
  id: text,
  monitorId: text,
  at: time,
  kind: text,
  group: text,
  fromState: v.nullable(monitorState),
  toState: v.nullable(monitorState),
  value: v.nullable(v.number()),
  threshold: v.nullable(v.number()),
  windowStart: nullableTime,
  windowEnd: nullableTime,
  muted: v.boolean(),
  actor: text,
  detail: text,
});

export const riskAssessment = v.looseObject({
  method: text,
  inputs: anyObject,
  frequencyPerDay: v.number(),
  likelihood: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)),
  impact: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)),
  score: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(25)),
  level: v.picklist(FINDING_SEVERITIES),
  rationale: v.array(text),
  mitigations: v.array(text),
  assessedAt: time,
  assessedBy: text,
});
export const finding = v.object({
  id: text,
  projectId: text,
  dedupeKey: text,
  title: text,
  description: text,
  severity: v.picklist(FINDING_SEVERITIES),
  status: v.picklist(FINDING_STATUSES),
  investigator: v.object({ kind: v.picklist(INVESTIGATOR_KINDS), id: text }),
  asset: v.object({ type: v.picklist(FINDING_ASSET_TYPES), id: text }),
  assignee: nullableText,
  evidence: v.array(text),
  firstSeen: time,
  lastSeen: time,
  occurrences: count,
  riskAssessment: v.nullable(riskAssessment),
  createdAt: time,
  updatedAt: time,
});
export const findingDetail = v.object({
  ...finding.entries,
  history: v.array(v.object({ at: time, actor: text, field: v.picklist(['status', 'assignee']), from: nullableText, to: nullableText })),
});
export const findingCounts = v.object({
  total: count,
  byStatus: v.record(v.string(), count),
  bySeverity: v.record(v.string(), count),
});

export const evaluator = v.looseObject({
  id: text,
  projectId: text,
  name: text,
  version: count,
  description: text,
  kind: v.picklist(['model', 'check']),
  template: nullableText,
  target: v.picklist(['trace', 'span', 'session']),
  scoreName: text,
  autoRun: v.boolean(),
  samplingRate: v.number(),
  concurrency: count,
  filter: anyObject,
  spanFilter: anyObject,
  output: anyObject,
  prompt: v.optional(text),
  variables: v.optional(textMap),
  model: v.optional(v.looseObject({ baseUrl: nullableText, model: nullableText, apiKeySet: v.boolean(), apiKeyHint: nullableText })),
  check: v.optional(anyObject),
  createdAt: time,
  updatedAt: time,
  createdBy: text,
});
export const evaluatorTemplate = v.looseObject({ id: text, kind: v.picklist(['model', 'check']), name: text, description: text, targets: v.array(text) });
export const evaluatorVariable = v.object({ path: text, type: text, targets: v.array(text), description: text, keyed: v.optional(v.boolean()) });
const evaluationItem = v.object({ traceId: nullableText, spanId: nullableText, sessionId: nullableText });
export const evaluatorRun = v.object({
  evaluatorId: text,
  evaluatorVersion: count,
  item: evaluationItem,
  status: v.picklist(['scored', 'failed']),
  scores: v.array(score),
  model: v.optional(v.looseObject({ attempts: count })),
  reason: v.optional(text),
});
const backfillEstimate = v.object({ items: count, modelCalls: count, estimatedInputTokens: count, maxOutputTokens: count });
export const backfillDryRun = v.object({
  dryRun: v.literal(true),
  evaluatorId: text,
  evaluatorVersion: count,
  startTime: time,
  endTime: time,
  estimate: backfillEstimate,
});
export const backfill = v.object({
  id: text,
  projectId: text,
  evaluatorId: text,
  evaluatorVersion: count,
  startTime: time,
  endTime: time,
  status: v.picklist(['queued', 'running', 'completed', 'failed', 'cancelled']),
  total: count,
  processed: count,
  failed: count,
  scoresWritten: count,
  estimate: anyObject,
  createdAt: time,
  createdBy: text,
  startedAt: nullableTime,
  finishedAt: nullableTime,
  cancelledAt: nullableTime,
  error: nullableText,
});
export const evaluatorStats = v.object({
  intervalSeconds: v.number(),
  data: v.array(
    v.object({
      evaluatorId: text,
      name: nullableText,
      buckets: v.array(v.object({ start: time, count: count, mean: v.nullable(v.number()), labels: v.record(v.string(), count) })),
    }),
  ),
});
