/**
 * The whole CPU-bound part of receiving a trace export: decode, keep the spans that can be
 * stored, cut them to the limits. One function with plain data in and out, so ingest can
 * run it on its main thread or hand it to a worker thread alike.
 */
import { decodeExport } from './decode/by-encoding.ts';
import { OtlpDecodeError } from './errors.ts';
import { describeCuts, limitSpans, type SpanLimits } from './validate/limits.ts';
import type { OtlpEncoding, OtlpSpan, OtlpTraceExport } from './types.ts';
import { partitionValidSpans } from './validate/spans.ts';

export interface ReadExportOptions {
  /** The receive time, in nanoseconds since the epoch. */
  nowUnixNano: bigint;
  limits: SpanLimits;
}

/** The spans to queue, and what the exporter is told about the rest. */
export interface ReadExportResult {
  ok: true;
  accepted: OtlpTraceExport;
  acceptedSpans: number;
  rejectedSpans: number;
  /** Rejections and cuts, for ExportTracePartialSuccess; "" when neither. */
  errorMessage: string;
}

/** A body that cannot be decoded: the message for the exporter's 400. */
export interface ReadExportFailure {
  ok: false;
  message: string;
}

/** Decodes, validates and limits one export; a malformed body is a failure value, not a throw (it crosses threads). */
export function readExport(body: Uint8Array, encoding: OtlpEncoding, opts: ReadExportOptions): ReadExportResult | ReadExportFailure {
  let decoded: OtlpTraceExport;
  const cap = { max: opts.limits.maxAttributes, skipped: new Map<OtlpSpan, number>() };
  try {
    decoded = decodeExport(body, encoding, cap);
  } catch (err) {
    if (err instanceof OtlpDecodeError) return { ok: false, message: err.message };
    throw err;
  }
  const partition = partitionValidSpans(decoded, { nowUnixNano: opts.nowUnixNano });
  const cuts = limitSpans(partition.accepted, opts.limits, cap.skipped);
  return {
    ok: true,
    accepted: partition.accepted,
    acceptedSpans: partition.acceptedSpans,
    rejectedSpans: partition.rejectedSpans,
    errorMessage: [partition.errorMessage, describeCuts(cuts, opts.limits)].filter((part) => part !== '').join('; '),
  };
}
