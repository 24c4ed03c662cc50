import type { Queue } from 'bullmq';
import type { KeyAuthenticator } from '@aos/http';
import type { Logger } from '@aos/log';
import type { Metrics } from '@aos/metrics';
import type { IngestSettings } from '@aos/config';
import { createBackpressure, queueBacklog, queueDepthPressure, type Backpressure } from '../backpressure.ts';
import { PACE_WINDOW_SECONDS, writerPacePressure } from '../writer-pace-pressure.ts';
import type { MaskingFindings } from '../masking-findings.ts';
import type { ProjectSettingsSource } from '../project-settings.ts';
import type { BodyLease, InflightBytes } from './inflight-bytes.ts';
import { IngestRefusal } from './refusal.ts';

/** What a signal's receiver (traces, logs, metrics) needs; `Payload` is what it queues. */
export interface ExportDeps<Payload> {
  auth: KeyAuthenticator;
  queue: Queue<Payload>;
  settings: IngestSettings;
  /** Per-project masking policy and dimension keys, applied before anything is queued. */
  projectSettings: ProjectSettingsSource;
  /** Collects masking hits on outputs and raises findings for them. */
  maskingFindings: MaskingFindings;
  logger: Logger;
  metrics: Metrics;
  /** The process's in-flight body budget, shared by every signal's receiver. */
  inflight: InflightBytes;
}

/**
 * A receiver's reasons to refuse exports for now: its queue above INGEST_MAX_QUEUE_DEPTH,
 * then, given `maxQueueSeconds` (spans: it is the span writers that fall behind under load),
 * the queue past that many seconds of the writers' pace (0 never refuses). Both read one
 * measurement of the queue.
 */
export function exportBackpressure(deps: Pick<ExportDeps<unknown>, 'queue' | 'settings'>, maxQueueSeconds = 0): Backpressure {
  const paced = maxQueueSeconds > 0;
  const backlog = queueBacklog(deps.queue, paced ? PACE_WINDOW_SECONDS : undefined);
  const depth = queueDepthPressure(backlog, deps.settings.maxQueueDepth);
  return createBackpressure(paced ? [depth, writerPacePressure(backlog, maxQueueSeconds)] : [depth]);
}

/**
 * Runs one export holding its bytes against the in-flight budget until it is answered, and
 * counts a refusal under the export's signal.
 */
export async function withBodyLease<T>(
  deps: Pick<ExportDeps<unknown>, 'inflight' | 'metrics' | 'logger'>,
  signal: 'traces' | 'logs' | 'metrics',
  run: (lease: BodyLease) => Promise<T>,
): Promise<T> {
  const lease = deps.inflight.lease();
  try {
    return await run(lease);
  } catch (err) {
    if (err instanceof IngestRefusal) {
      deps.metrics.ingestRefused.inc({ signal, reason: err.reason });
      // A client that went away (or was cut off as too slow) is not a fault of the service.
      if (err.reason === 'aborted') deps.logger.info('client aborted the export', { reason: err.message });
    }
    throw err;
  } finally {
    lease.release();
  }
}
