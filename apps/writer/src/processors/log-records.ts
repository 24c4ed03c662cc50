import { GENAI_MESSAGE_EVENTS, telemetryScoresOf } from '@aos/domain';
import { LOG_RECORD_QUEUE, parseLogRecordPayload, type WorkerStats } from '@aos/queue';
import { insertSpanLogRecords, writeTelemetryScores, type Storage } from '@aos/storage';
import { startPayloadProcessor, type PayloadProcessorDeps } from './payload.ts';
import type { SpanLogJoin } from '../span-log-join.ts';

export interface LogRecordProcessorDeps extends PayloadProcessorDeps {
  storage: Storage;
  join: SpanLogJoin;
}

/**
 * The log records queue's processor: stores each batch's GenAI event records for their
 * spans, turns evaluation results into scores, and folds the records into the spans
 * already stored (span-log-join.ts). Every step is idempotent, so a retried job is harmless.
 */
export function startLogRecordProcessor(deps: LogRecordProcessorDeps): { stats: WorkerStats; close(): Promise<void> } {
  return startPayloadProcessor(deps, { name: LOG_RECORD_QUEUE, parse: parseLogRecordPayload, describe: 'log record' }, async (payload) => {
    const { projectId, records } = payload;
    // Message events are kept for their spans; evaluation results are scores and nothing else.
    const messages = records.filter((r) => GENAI_MESSAGE_EVENTS.has(r.eventName));
    await insertSpanLogRecords(deps.storage, projectId, payload.receivedAtMs, messages);
    const scores = records.flatMap((r) => telemetryScoresOf(r.traceId, r.spanId, [{ ...r, name: r.eventName }]));
    await writeTelemetryScores(deps.storage, projectId, scores);
    await deps.join.join(projectId, messages.map((r) => r.traceId));
    return { records: messages.length, scores: scores.length };
  });
}
