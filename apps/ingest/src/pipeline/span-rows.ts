import { maskExport, type CompiledPolicy } from '@aos/masking';
import type { PriceTable } from '@aos/domain';
import { readExport, type OtlpEncoding, type OtlpTraceExport, type ReadExportFailure, type SpanLimits } from '@aos/otlp';
// Not the package's root: that loads the engine client (chDB's native module), which a
// decode thread must not load (its teardown at pool close stalled the process's own engine).
import { encodeSpanBatch, type EncodedSpanBatch } from '@aos/storage/span-batch';

/** One export body and what turning it into rows needs, apart from the masking policy and prices. */
export interface SpanRowsInput {
  body: Uint8Array;
  encoding: OtlpEncoding;
  limits: SpanLimits;
  projectId: string;
  /** When ingest received the export, milliseconds since the epoch. */
  receivedAtMs: number;
  dimensionKeys: string[];
  /** MAX_ATTRIBUTE_BYTES. */
  maxValueBytes: number;
}

/** Spans whose outputs a masking rule changed, for the findings ingest records. */
export interface OutputMaskingHit {
  traceId: string;
  rules: string[];
}

export interface SpanRowsResult {
  ok: true;
  acceptedSpans: number;
  rejectedSpans: number;
  /** Rejections and cuts, for ExportTracePartialSuccess; "" when neither. */
  errorMessage: string;
  /** The accepted spans as rows; null when none was accepted. */
  batch: EncodedSpanBatch | null;
  /** Spans a masking rule changed. */
  maskedSpans: number;
  outputHits: OutputMaskingHit[];
}

/**
 * Decodes, validates, limits, masks, normalizes and encodes one export: everything between
 * the body and the queue, so the writer only inserts. Pure CPU work, run on a decode thread
 * for large bodies; a malformed body is a failure value, not a throw (it crosses threads).
 */
export function readSpanRows(input: SpanRowsInput, masking: CompiledPolicy | null, prices: PriceTable): SpanRowsResult | ReadExportFailure {
  const nowUnixNano = BigInt(input.receivedAtMs) * 1_000_000n;
  const read = readExport(input.body, input.encoding, { nowUnixNano, limits: input.limits });
  if (!read.ok) return read;
  const masked = masking ? maskSpans(read.accepted, masking) : { maskedRules: undefined, outputHits: [] };
  const batch =
    read.acceptedSpans > 0
      ? encodeSpanBatch(read.accepted, {
          projectId: input.projectId,
          receivedAtMs: input.receivedAtMs,
          prices,
          maxValueBytes: input.maxValueBytes,
          dimensionKeys: input.dimensionKeys,
          ...(masked.maskedRules ? { maskedRules: masked.maskedRules } : {}),
        })
      : null;
  return {
    ok: true,
    acceptedSpans: read.acceptedSpans,
    rejectedSpans: read.rejectedSpans,
    errorMessage: read.errorMessage,
    batch,
    maskedSpans: masked.maskedRules ? Object.keys(masked.maskedRules).length : 0,
    outputHits: masked.outputHits,
  };
}

/**
 * Masks the accepted spans in place. Answers the rules that fired per span, keyed by the
 * span's position in export order (how normalization walks the export; undefined when
 * nothing fired), and the spans whose outputs were masked.
 */
function maskSpans(accepted: OtlpTraceExport, policy: CompiledPolicy): { maskedRules: Record<string, string[]> | undefined; outputHits: OutputMaskingHit[] } {
  const masking = maskExport(accepted, policy);
  if (masking.spans.length === 0) return { maskedRules: undefined, outputHits: [] };
  return {
    maskedRules: Object.fromEntries(masking.spans.map((s) => [s.position, s.rules])),
    outputHits: masking.spans.filter((s) => s.outputRules.length > 0).map((s) => ({ traceId: s.span.traceId, rules: s.outputRules })),
  };
}
