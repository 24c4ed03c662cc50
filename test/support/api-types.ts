/**
 * The shapes the API answers with, for tests: the storage and domain types the routes
 * return, plus the envelopes around them.
 */
import type { ErrorDetail } from '@aos/http';
import type { BackfillEstimate, EvaluatorTemplate, ModelTemplate, VariableDefinition } from '@aos/evaluators';
import type { EvaluatorView } from '../../apps/query/src/routes/trace-evaluators/evaluator-body.ts';
import type { MonitorView } from '../../apps/query/src/routes/trace-monitors/monitor-view.ts';
import type { MaskingPolicy, TextMatch } from '@aos/masking';
import type {
  BackfillRecord,
  DimensionKey,
  EvaluationItem,
  ExportRecord,
  Finding,
  FindingChange,
  MeasuredGroup,
  MetadataKeyCandidate,
  MonitorEvent,
  ScoreRecord,
  SpanDetail,
  ApiSpan,
  TimeseriesSeries,
  TraceRecord,
  TraceSummary,
  TraceView,
} from '@aos/storage';

export type { BackfillRecord, EvaluatorTemplate, EvaluatorView, ModelTemplate, ExportRecord, Finding, MonitorEvent, MonitorView, VariableDefinition, ScoreRecord, SpanDetail, ApiSpan, TraceRecord, TraceSummary, TraceView };

/** The one error shape. */
export interface ErrorBody {
  error: { code: string; message: string; details: ErrorDetail[]; requestId: string };
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type SpanNode = ApiSpan & { children: SpanNode[] };
export type TraceDetail = TraceRecord & {
  projectId: string;
  spans: SpanNode[];
  /** Null until the trace has gone quiet and been judged. */
  flags: string[] | null;
  flagDetails: Record<string, string> | null;
};

/** A row of the trace list: the trace and its flags (null until judged). */
export type TraceListItem = TraceRecord & { flags: string[] | null };

/** A row of GET /traces/spans: the span and the trace it belongs to. */
export type SpanListItem = ApiSpan & { traceId: string };

export interface SessionListItem {
  sessionId: string;
  traceCount: number;
  flags: string[];
}

/** A query-language field of GET /traces/query-fields. */
export interface QueryField {
  name: string;
  type: string;
  operators: string[];
  description: string;
  example: string;
}

/** A finding as GET/PATCH /trace-findings/{id} give it: with the history of its changes. */
export type FindingDetail = Finding & { history: FindingChange[] };

/** An evaluator that calls a model judge (its view carries the model settings). */
export type ModelEvaluatorView = Extract<EvaluatorView, { model: unknown }>;

/** POST /trace-evaluators/{id}/run. */
export interface EvaluatorRun {
  evaluatorId: string;
  evaluatorVersion: number;
  item: EvaluationItem;
  status: 'scored' | 'failed';
  scores: ScoreRecord[];
  /** Scored by a model judge: how the call went. */
  model?: { attempts: number };
  /** Failed: why. */
  reason?: string;
}

/** POST /trace-evaluators/{id}/backfills with dryRun. */
export interface BackfillDryRun {
  dryRun: true;
  evaluatorId: string;
  evaluatorVersion: number;
  startTime: string;
  endTime: string;
  estimate: BackfillEstimate;
}

/** GET /trace-evaluators/stats. */
export interface EvaluatorStats {
  intervalSeconds: number;
  data: Array<{
    evaluatorId: string;
    name: string | null;
    buckets: Array<{ start: string; count: number; mean: number | null; labels: Record<string, number> }>;
  }>;
}

export interface DimensionList {
  data: DimensionKey[];
  maxKeys: number;
  suggestions?: { since: string; sampledSpans: number; keys: MetadataKeyCandidate[] };
}
export interface DimensionsAdded {
  added: string[];
  alreadyPresent: string[];
  data: DimensionKey[];
  note: string;
}

export interface TimeseriesBody {
  measure: string;
  intervalSeconds: number;
  groupBy: string | null;
  series: TimeseriesSeries[];
}

export interface MonitorPreview {
  measure: string;
  unit: string;
  value: number | null;
  state: string;
  groups: MeasuredGroup[];
}

/** POST /trace-monitors/{id}/acknowledge: the monitor and the groups it acknowledged. */
export type AcknowledgedMonitor = MonitorView & { acknowledgedGroups: string[] };

/** GET /trace-monitors/metrics. */
export interface MonitorMetric {
  name: string;
  unit: string;
  description: string;
  needsScoreName: boolean;
}

export interface MaskingPolicyBody {
  projectId: string;
  policy: MaskingPolicy;
  updatedAt: string | null;
  updatedBy: string | null;
  detectors: string[];
}
export interface MaskingTestBody {
  masked: string;
  matches: TextMatch[];
}

/** The answer's JSON as the shape the test expects of it. */
export async function readJson<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}
