import { loadPrices } from '@aos/domain';
import { addSpanRowsJob, type IngestJobPayload } from '@aos/queue';
import type { Backpressure } from '../backpressure.ts';
import { admit, type ExportCall } from './admission.ts';
import { createDecodePool, type DecodePool } from './decode-pool.ts';
import { enqueueOrRefuse } from './enqueue.ts';
import { exportBackpressure, withBodyLease, type ExportDeps } from './export-deps.ts';
import type { BodyLease, InflightBytes } from './inflight-bytes.ts';
import { IngestRefusal } from './refusal.ts';

/** The ingest queue holds both payload shapes (jobs of an older version may still wait in it); this adds rows only. */
export type TraceExportDeps = ExportDeps<IngestJobPayload>;

/** What the exporter is told on success: the spans refused one by one, if any. */
export interface TraceExportResult {
  partial?: { rejectedSpans: number; errorMessage: string };
}

/** The trace receiver behind every transport (OTLP/HTTP and OTLP/gRPC). */
export interface TraceExportPipeline {
  /**
   * Admits, reads, decodes, validates, masks and normalizes one ExportTraceServiceRequest,
   * and resolves once its spans are in Redis as rows ready to insert (their bytes under a key of their own, the job naming it). Throws IngestRefusal for anything the exporter is told.
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
    // Only spans have a writer pace to keep to: it is the span writers that fall behind under load.
    backpressure: exportBackpressure(deps, settings.maxQueueSeconds),
    inflight: deps.inflight,
    decoder: createDecodePool({
      threads: settings.decodeThreads,
      minBytes: settings.decodeThreadMinBytes,
      timeLimitMs: settings.decodeTimeLimitMs,
      // Read once at start, so a bad price file stops the service instead of every export.
      prices: loadPrices(settings.modelPricesFile),
      pricesFile: settings.modelPricesFile,
    }),
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
  call.stages?.mark('admit');
  const body = await call.readMessage(lease);
  call.stages?.mark('read');
  deps.metrics.ingestBodyBytes.observe({ signal: SIGNAL }, body.byteLength);
  const receivedAtMs = Date.now();
  const input = { body, encoding, limits: deps.settings.limits, projectId, receivedAtMs, dimensionKeys: projectSettings.dimensionKeys, maxValueBytes: deps.settings.maxAttributeBytes };
  const result = await shared.decoder.spanRows(input, projectSettings, call.stages);
  if (!result.ok) throw new IngestRefusal('invalid', result.message);
  if (result.outputHits.length > 0) deps.maskingFindings.record(projectId, result.outputHits);

  if (result.batch) {
    const { chunk, format, rows, deploymentIds, traceIds, telemetryScores } = result.batch;
    const job = { projectId, receivedAtMs, rowsFormat: format, rowCount: rows, deploymentIds, traceIds, telemetryScores };
    await enqueueOrRefuse(() => addSpanRowsJob(deps.queue, job, chunk), deps.logger, { projectId, spans: result.acceptedSpans });
    call.stages?.mark('enqueue');
  }
  deps.metrics.ingestAccepted.inc({ signal: SIGNAL }, result.acceptedSpans);
  deps.metrics.ingestRejectedItems.inc({ signal: SIGNAL }, result.rejectedSpans);
  if (result.maskedSpans > 0) deps.metrics.ingestMasked.inc({ signal: SIGNAL }, result.maskedSpans);
  // Spans cut to the limits are told too: partial success with 0 rejected is OTLP's warning.
  return result.errorMessage !== '' ? { partial: { rejectedSpans: result.rejectedSpans, errorMessage: result.errorMessage } } : {};
}
