import { UnrecoverableError } from 'bullmq';
import { GENAI_MESSAGE_EVENTS, telemetryScoresOf } from '@aos/domain';
import type { Logger } from '@aos/log';
import type { Metrics } from '@aos/metrics';
import { LOG_RECORD_QUEUE, createRedisConnection, parseLogRecordPayload, startWorker, type LogRecordPayload, type WorkerStats } from '@aos/queue';
import { insertSpanLogRecords, writeFailureWaits, writeTelemetryScores, type Storage } from '@aos/storage';
import type { SpanLogJoin } from './span-log-join.ts';

export interface LogRecordProcessorDeps {
  storage: Storage;
  redisUrl: string;
  prefix: string;
  logger: Logger;
  lockDurationMs: number;
  concurrency: number;
  join: SpanLogJoin;
  metrics: Metrics;
}

/**
 * The log records queue's processor: stores each batch's GenAI event records for their
 * spans, turns evaluation results into scores, and folds the records into the spans
 * already stored (span-log-join.ts). Every step is idempotent, so a retried job is harmless.
 */
export function startLogRecordProcessor(deps: LogRecordProcessorDeps): { stats: WorkerStats; close(): Promise<void> } {
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const started = startWorker({
    queue: LOG_RECORD_QUEUE,
    connection,
    prefix: deps.prefix,
    concurrency: deps.concurrency,
    lockDurationMs: deps.lockDurationMs,
    logger: deps.logger,
    // Acknowledged records: only the engine's refusal of them spends an attempt.
    waits: writeFailureWaits,
    onOutcome: deps.metrics.jobOutcomes(LOG_RECORD_QUEUE),
    processor: async (job) => {
      let payload: LogRecordPayload;
      try {
        payload = parseLogRecordPayload(job.data);
      } catch (err) {
        throw new UnrecoverableError(`invalid log record payload: ${(err as Error).message}`);
      }
      const { projectId, records } = payload;
      // Message events are kept for their spans; evaluation results are scores and nothing else.
      const messages = records.filter((r) => GENAI_MESSAGE_EVENTS.has(r.eventName));
      await insertSpanLogRecords(deps.storage, projectId, payload.receivedAtMs, messages);
      const scores = records.flatMap((r) => telemetryScoresOf(r.traceId, r.spanId, [{ ...r, name: r.eventName }]));
      await writeTelemetryScores(deps.storage, projectId, scores);
      await deps.join.join(projectId, messages.map((r) => r.traceId));
      return { records: messages.length, scores: scores.length };
    },
  });
  return {
    stats: started.stats,
    async close() {
      await started.worker.close();
      await connection.quit();
    },
  };
}
