export { createRedisConnection, unlessRedisLost } from './redis.ts';
export { withMigrationLock } from './migration-lock.ts';
export type { Redis } from './redis.ts';
export {
  INGEST_QUEUE,
  createIngestQueue,
  isSpanRowsKeyPayload,
  isSpanRowsPayload,
  parseIngestJobPayload,
  spanBatchJobOptions,
  spanBatchPayloadSchema,
  spanRowsKeyPayloadSchema,
  spanRowsPayloadSchema,
} from './ingest-queue.ts';
export type { IngestJobPayload, SpanBatchJob, SpanBatchPayload, SpanRowsKeyPayload, SpanRowsPayload } from './ingest-queue.ts';
export { addSpanRowsJob, markJobRowsStored, readJobRows, rowsKeyOf } from './span-rows-key.ts';
export type { JobRows, SpanRowsJob } from './span-rows-key.ts';
export { readWriterPace, recordStoredSpans } from './writer-pace.ts';
export type { WriterPace } from './writer-pace.ts';
export { insertBlockOf, jobsOfInsertBlock, markJobsRowsStored, readInsertBlock, recordInsertBlocks } from './insert-blocks.ts';
export type { InsertBlockMember } from './insert-blocks.ts';
export { closeWorker, countOutcome, startWorker } from './worker.ts';
export type { WorkerStats } from './worker.ts';
export { ROWS_MISSING_PREFIX, ROWS_REFUSED_PREFIX, countSpans, deadLetterCauseOf, listDeadLetters, removeDeadLetters, retryDeadLetters } from './dead-letters.ts';
export type { DeadLetter, DeadLetterCause } from './dead-letters.ts';
export {
  MAINTENANCE_QUEUE,
  RETENTION_JOB,
  TRACE_FLAGS_JOB,
  TRACE_ROLLUPS_JOB,
  createMaintenanceQueue,
  maintenancePayloadSchema,
  parseMaintenancePayload,
  scheduleMaintenance,
} from './maintenance-queue.ts';
export type { MaintenancePayload } from './maintenance-queue.ts';
export { settingsChangePublisher, subscribeSettingsChanges } from './settings-changes.ts';
export type { SettingsChangePublisher, SettingsChangeSubscription } from './settings-changes.ts';
export {
  MONITOR_EVALUATE_JOB,
  MONITOR_QUEUE,
  createMonitorQueue,
  monitorPayloadSchema,
  parseMonitorPayload,
  scheduleMonitor,
  scheduledMonitorIds,
  unscheduleMonitor,
} from './monitor-queue.ts';
export type { MonitorPayload } from './monitor-queue.ts';
export { WEBHOOK_JOB, WEBHOOK_QUEUE, createWebhookQueue, enqueueWebhook, parseWebhookPayload, webhookPayloadSchema } from './webhook-queue.ts';
export type { WebhookPayload } from './webhook-queue.ts';
export {
  BACKFILL_CHUNK_JOB,
  EVALUATION_QUEUE,
  EVALUATOR_RUN_JOB,
  backfillChunkPayloadSchema,
  createEvaluationQueue,
  enqueueBackfillChunk,
  enqueueEvaluatorRuns,
  evaluatorRunPayloadSchema,
  postponeJob,
} from './evaluation-queue.ts';
export type { BackfillChunkPayload, EvaluationPayload, EvaluatorRunPayload } from './evaluation-queue.ts';
export { LOG_RECORD_QUEUE, createLogRecordQueue, logRecordPayloadSchema, parseLogRecordPayload } from './log-record-queue.ts';
export type { LogRecordPayload } from './log-record-queue.ts';
export { METRIC_POINT_QUEUE, createMetricPointQueue, metricPointPayloadSchema, parseMetricPointPayload } from './metric-point-queue.ts';
export type { MetricPointPayload } from './metric-point-queue.ts';
