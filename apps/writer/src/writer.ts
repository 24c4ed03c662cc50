import type { EvaluatorSettings, MonitorSettings, RetentionSettings, WriterSettings } from '@aos/config';
import type { Logger, LogLevel } from '@aos/log';
import type { Metrics } from '@aos/metrics';
import { RETENTION_JOB, TRACE_FLAGS_JOB, TRACE_ROLLUPS_JOB } from '@aos/queue';
import type { Storage } from '@aos/storage';
import { startEvaluationProcessor } from './processors/evaluations.ts';
import { startMaintenanceProcessor } from './processors/maintenance.ts';
import { startLogRecordProcessor } from './processors/log-records.ts';
import { startMetricPointProcessor } from './processors/metric-points.ts';
import { startMonitorProcessor, type MonitorProcessor } from './processors/monitors.ts';
import { startSpanBatchProcessor, type SpanBatchProcessor } from './span-batches/processor.ts';
import { createSpanLogJoin } from './span-log-join.ts';
import { createCostStatsCache, createDueCursor, runTraceFlagsPass } from './passes/trace-flags.ts';
import { runTraceRollupPass } from './passes/trace-rollups.ts';
import { startQueueGauges } from './queue-gauges.ts';
import { runRetentionPass } from './passes/retention.ts';
import { startWebhookProcessor } from './processors/monitor-webhooks.ts';

export interface WriterDeps {
  storage: Storage;
  redisUrl: string;
  prefix: string;
  settings: WriterSettings;
  monitorSettings: MonitorSettings;
  evaluatorSettings: EvaluatorSettings;
  retentionSettings: RetentionSettings;
  logger: Logger;
  logLevel: LogLevel;
  metrics: Metrics;
}

export interface Writer {
  /** The ingest queue's figures: jobs, and the inserts and rows they became. */
  stats: SpanBatchProcessor['stats'];
  monitors: MonitorProcessor;
  /** Stops taking jobs, writes what is pending, and waits for active jobs to finish. */
  close(): Promise<void>;
}

/** Monitor evaluations in flight per writer. */
const MONITOR_CONCURRENCY = 4;
/** Webhook deliveries in flight per writer. */
const WEBHOOK_CONCURRENCY = 8;
/** Maintenance passes run one at a time: each is a sweep over storage. */
const MAINTENANCE_CONCURRENCY = 1;

/**
 * The writer: every queue it consumes, with its processor and concurrency, started here
 * and nowhere else (no processor starts another). Everything but the span batches' CPU
 * work runs on this thread, which owns the storage connection.
 */
export function startWriter(deps: WriterDeps): Writer {
  const { settings, storage, redisUrl, prefix, logger } = deps;
  const common = { storage, redisUrl, prefix, logger, metrics: deps.metrics, lockDurationMs: settings.lockDurationMs };
  // Work no request or ack waits on goes through the background storage: on the embedded
  // engine its statements yield to requests' and to the span inserts (a server's is itself).
  const background = { ...common, storage: storage.background ?? storage };

  // Spans and their GenAI event log records meet here, whichever queue brings them first.
  const join = createSpanLogJoin({ storage, maxValueBytes: settings.maxAttributeBytes });
  // INGEST_QUEUE: OTLP batches into span rows (WRITER_CONCURRENCY per thread, WRITER_THREADS threads).
  const spans = startSpanBatchProcessor({ ...common, settings, logLevel: deps.logLevel, join });
  // LOG_RECORD_QUEUE: OTLP log records kept for their spans, evaluation results as scores (WRITER_CONCURRENCY).
  const logRecords = startLogRecordProcessor({ ...common, concurrency: settings.concurrency, join });
  // METRIC_POINT_QUEUE: GenAI metric points, stored as sent (WRITER_CONCURRENCY).
  const metricPoints = startMetricPointProcessor({ ...common, concurrency: settings.concurrency });
  // EVALUATION_QUEUE: automatic evaluator runs and backfill chunks.
  const evaluations = startEvaluationProcessor({ ...background, settings: deps.evaluatorSettings, concurrency: deps.evaluatorSettings.workerConcurrency });
  // MAINTENANCE_QUEUE: periodic passes over stored spans.
  const costStats = createCostStatsCache();
  const dueCursor = createDueCursor();
  const maintenance = startMaintenanceProcessor({
    ...background,
    concurrency: MAINTENANCE_CONCURRENCY,
    passes: {
      [TRACE_FLAGS_JOB]: {
        everyMs: settings.traceFlagsIntervalMs,
        run: async () => {
          const result = await runTraceFlagsPass(background.storage, {
            rules: settings.traceFlagRules,
            quietMs: settings.traceQuietMs,
            costStats,
            cursor: dueCursor,
            // A trace judged for flags has completed: the evaluators that run on new traces take it from here.
            onTracesJudged: (projectId, traceIds) => evaluations.tracesCompleted(projectId, traceIds),
          });
          deps.metrics.maintenanceDue.set({ pass: 'trace_flags' }, result.traces);
          deps.metrics.traceFlagsBehind.set(result.behindMs / 1000);
          return { done: result.traces, ...result };
        },
      },
      [TRACE_ROLLUPS_JOB]: {
        everyMs: settings.traceRollupIntervalMs,
        run: async () => {
          const result = await runTraceRollupPass(background.storage, { quietMs: settings.traceRollupQuietMs });
          deps.metrics.maintenanceDue.set({ pass: 'trace_rollups' }, result.due);
          return result;
        },
      },
      [RETENTION_JOB]: {
        everyMs: deps.retentionSettings.intervalMs,
        run: () => runRetentionPass(background.storage, { defaultDays: deps.retentionSettings.defaultDays }),
      },
    },
  });
  // MONITOR_QUEUE: scheduled monitor evaluations, which queue webhook deliveries.
  const monitors = startMonitorProcessor({ ...background, settings: deps.monitorSettings, concurrency: MONITOR_CONCURRENCY });
  // WEBHOOK_QUEUE: signed deliveries of monitor state changes.
  const webhooks = startWebhookProcessor({ ...background, settings: deps.monitorSettings, concurrency: WEBHOOK_CONCURRENCY });
  const queueGauges = startQueueGauges({ ...common, settings, monitorSettings: deps.monitorSettings });

  return {
    stats: spans.stats,
    monitors,
    async close() {
      // Evaluation jobs finish before the span workers stop: in tests, an evaluation query
      // still running while the writer threads ended never returned (embedded engine).
      await maintenance.close();
      await evaluations.close();
      await Promise.all([spans.close(), logRecords.close(), metricPoints.close(), monitors.close(), webhooks.close(), queueGauges.close()]);
    },
  };
}
