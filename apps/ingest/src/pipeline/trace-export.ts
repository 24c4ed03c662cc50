import type { OtlpTraceExport } from '@aos/otlp';
import { maskExport, type CompiledPolicy } from '@aos/masking';
import type { SpanBatchPayload } from '@aos/queue';
import { createBackpressure, type Backpressure } from '../backpressure.ts';
import type { MaskingFindings } from '../masking-findings.ts';
import { admit, type ExportCall } from './admission.ts';
import { createDecodePool, type DecodePool } from './decode-pool.ts';
import { enqueueOrRefuse } from './enqueue.ts';
import { withBodyLease, type ExportDeps } from './export-deps.ts';
import type { BodyLease, InflightBytes } from './inflight-bytes.ts';
import { IngestRefusal } from './refusal.ts';

export type TraceExportDeps = ExportDeps<SpanBatchPayload>;

/** What the exporter is told on success: the spans refused one by one, if any. */
export interface TraceExportResult {
  partial?: { rejectedSpans: number; errorMessage: string };
}

/** The trace receiver behind every transport (OTLP/HTTP and OTLP/gRPC). */
export interface TraceExportPipeline {
  /**
   * Admits, reads, decodes, validates and masks one ExportTraceServiceRequest, and resolves
   * once its spans are in Redis. Throws IngestRefusal for anything the exporter is told.
   */
  export(call: ExportCall): Promise<TraceExportResult>;
  /** Largest message after decompression (INGEST_MAX_BODY_BYTES); transports enforce it while reading. */
  maxMessageBytes: number;
  /** How long a refused exporter should wait before it retries (INGEST_RETRY_AFTER_SECONDS). */
  retryAfterSeconds: number;
  /** Stops the decode threads; exports still in flight should have been answered. */
  close(): Promise<void>;
}

/** What one process's exports share, whatever transport brought them. */
interface SharedState {
  backpressure: Backpressure;
  inflight: InflightBytes;
  decoder: DecodePool;
}

/** The signal this pipeline's items are counted under. */
const SIGNAL = 'traces';

/** One pipeline per process: both transports share its backpressure and caches. */
export function createTraceExportPipeline(deps: TraceExportDeps): TraceExportPipeline {
  const { settings } = deps;
  const shared: SharedState = {
    backpressure: createBackpressure(deps.queue, settings.maxQueueDepth),
    inflight: deps.inflight,
    decoder: createDecodePool({ threads: settings.decodeThreads, minBytes: settings.decodeThreadMinBytes, limits: settings.limits }),
  };
  return {
    export: (call) => withBodyLease(deps, SIGNAL, (lease) => exportTraces(deps, shared, call, lease)),
    maxMessageBytes: settings.maxBodyBytes,
    retryAfterSeconds: settings.retryAfterSeconds,
    close: () => shared.decoder.close(),
  };
}

async function exportTraces(deps: TraceExportDeps, shared: SharedState, call: ExportCall, lease: BodyLease): Promise<TraceExportResult> {
  const { projectId, encoding, projectSettings } = await admit({ ...deps, backpressure: shared.backpressure }, call);
  const body = await call.readMessage(lease);
  deps.metrics.ingestBodyBytes.observe({ signal: SIGNAL }, body.byteLength);
  const receivedAtMs = Date.now();
  const result = await shared.decoder.decode(body, encoding, receivedAtMs);
  if (!result.ok) throw new IngestRefusal('invalid', result.message);
  const maskedRules = projectSettings.masking ? maskSpans(result.accepted, projectSettings.masking, projectId, deps.maskingFindings) : undefined;

  if (result.acceptedSpans > 0) {
    const payload = {
      projectId,
      receivedAtMs,
      export: result.accepted,
      ...(projectSettings.dimensionKeys.length > 0 ? { dimensionKeys: projectSettings.dimensionKeys } : {}),
      ...(maskedRules ? { maskedRules } : {}),
    };
    await enqueueOrRefuse(() => deps.queue.add('batch', payload), deps.logger, { projectId, spans: result.acceptedSpans });
  }
  deps.metrics.ingestAccepted.inc({ signal: SIGNAL }, result.acceptedSpans);
  deps.metrics.ingestRejectedItems.inc({ signal: SIGNAL }, result.rejectedSpans);
  if (maskedRules) deps.metrics.ingestMasked.inc({ signal: SIGNAL }, Object.keys(maskedRules).length);
  // Spans cut to the limits are told too: partial success with 0 rejected is OTLP's warning.
  return result.errorMessage !== '' ? { partial: { rejectedSpans: result.rejectedSpans, errorMessage: result.errorMessage } } : {};
}

/**
 * Masks the accepted spans in place and returns the rules that fired per span, keyed by
 * the span's position in export order (how the writer walks the export), or undefined
 * when nothing fired.
 */
function maskSpans(
  accepted: OtlpTraceExport,
  policy: CompiledPolicy,
  projectId: string,
  findings: MaskingFindings,
): Record<string, string[]> | undefined {
  const masking = maskExport(accepted, policy);
  if (masking.spans.length === 0) return undefined;
  const outputHits = masking.spans.filter((s) => s.outputRules.length > 0);
  if (outputHits.length > 0) findings.record(projectId, outputHits.map((s) => ({ traceId: s.span.traceId, rules: s.outputRules })));
  return Object.fromEntries(masking.spans.map((s) => [s.position, s.rules]));
}
