/**
 * The shapes the API answers with, for tests: the storage and domain types the routes
 * return, plus the envelopes around them.
 */
import type { ErrorDetail } from '@aos/http';
import type { MaskingPolicy, TextMatch } from '@aos/masking';
import type {
  DimensionKey,
  Finding,
  MeasuredGroup,
  MetadataKeyCandidate,
  SpanDetail,
  SpanSummary,
  TimeseriesSeries,
  TraceRecord,
  TraceSummary,
  TraceView,
} from '@aos/storage';

export type { Finding, SpanDetail, TraceRecord, TraceSummary, TraceView };

/** The one error shape. */
export interface ErrorBody {
  error: { code: string; message: string; details: ErrorDetail[]; requestId: string };
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type SpanNode = SpanSummary & { children: SpanNode[] };
export type TraceDetail = TraceRecord & {
  projectId: string;
  spans: SpanNode[];
  /** Null until the trace has gone quiet and been judged. */
  flags: string[] | null;
  flagDetails: Record<string, string> | null;
};

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
  value: number | null;
  state: string;
  groups: MeasuredGroup[];
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
