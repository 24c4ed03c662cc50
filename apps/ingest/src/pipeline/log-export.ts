import { OtlpDecodeError, decodeLogsExport, partitionSpanLogRecords } from '@aos/otlp';
import { isSpanLogEvent } from '@aos/domain';
import type { LogRecordPayload } from '@aos/queue';
import type { Backpressure } from '../backpressure.ts';
import { admit, type ExportCall } from './admission.ts';
import { decodeOrRefuse, enqueueOrRefuse } from './enqueue.ts';
import { exportBackpressure, withBodyLease, type ExportDeps } from './export-deps.ts';
import type { BodyLease } from './inflight-bytes.ts';
import { maskLogRecords } from './log-masking.ts';

export type LogExportDeps = ExportDeps<LogRecordPayload>;

/** What the exporter is told on success: the records refused, if any, with the reasons. */
export interface LogExportResult {
  partial?: { rejectedLogRecords: number; errorMessage: string };
}

/** The logs receiver behind both transports, with the trace receiver's checks and limits. */
export interface LogExportPipeline {
  /**
   * Admits, reads, decodes and masks one ExportLogsServiceRequest and resolves once its
   * GenAI event records are in Redis. Records outside a span, and records that are not
   * GenAI message or evaluation events, are refused one by one. Throws IngestRefusal.
   */
  export(call: ExportCall): Promise<LogExportResult>;
  maxMessageBytes: number;
  retryAfterSeconds: number;
}

/** The signal this pipeline's items are counted under. */
const SIGNAL = 'logs';

/** One per process; its high-water mark is the log record queue's own depth. */
export function createLogExportPipeline(deps: LogExportDeps): LogExportPipeline {
  const backpressure = exportBackpressure(deps);
  return {
    export: (call) => withBodyLease(deps, SIGNAL, (lease) => exportLogs(deps, backpressure, call, lease)),
    maxMessageBytes: deps.settings.maxBodyBytes,
    retryAfterSeconds: deps.settings.retryAfterSeconds,
  };
}

// Log bodies carry GenAI message texts only (no 100k-attribute spans), so they are decoded
// on the event loop; the in-flight budget and the body limit bound them like trace bodies.
async function exportLogs(deps: LogExportDeps, backpressure: Backpressure, call: ExportCall, lease: BodyLease): Promise<LogExportResult> {
  const { projectId, encoding, projectSettings } = await admit({ ...deps, backpressure }, call);
  const body = await call.readMessage(lease);
  deps.metrics.ingestBodyBytes.observe({ signal: SIGNAL }, body.byteLength);
  const decoded = decodeOrRefuse(() => decodeLogsExport(body, encoding), (err) => err instanceof OtlpDecodeError);
  const result = partitionSpanLogRecords(decoded, isSpanLogEvent);
  if (projectSettings.masking) {
    const masking = maskLogRecords(result.accepted, projectSettings.masking);
    if (masking.outputHits.length > 0) deps.maskingFindings.record(projectId, masking.outputHits);
    deps.metrics.ingestMasked.inc({ signal: SIGNAL }, masking.maskedRecords);
  }
  if (result.accepted.length > 0) {
    const payload: LogRecordPayload = { projectId, receivedAtMs: Date.now(), records: result.accepted };
    await enqueueOrRefuse(() => deps.queue.add('records', payload), deps.logger, { projectId, logRecords: result.accepted.length });
  }
  deps.metrics.ingestAccepted.inc({ signal: SIGNAL }, result.accepted.length);
  deps.metrics.ingestRejectedItems.inc({ signal: SIGNAL }, result.rejected);
  return result.rejected > 0 ? { partial: { rejectedLogRecords: result.rejected, errorMessage: result.errorMessage } } : {};
}
