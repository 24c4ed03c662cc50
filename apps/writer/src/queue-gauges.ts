import type { WriterSettings, MonitorSettings } from '@aos/config';
import type { Logger } from '@aos/log';
import { registerQueueMetrics, type Metrics } from '@aos/metrics';
import {
  createEvaluationQueue,
  createIngestQueue,
  createLogRecordQueue,
  createMaintenanceQueue,
  createMetricPointQueue,
  createMonitorQueue,
  createRedisConnection,
  createWebhookQueue,
} from '@aos/queue';

/**
 * Reports every queue the writer consumes (depth by state, age of the oldest waiting job)
 * on the writer's /metrics. Writers report them rather than ingest or query: they are the
 * processes that drain every queue and are scaled on it.
 */
export function startQueueGauges(deps: {
  redisUrl: string;
  prefix: string;
  settings: WriterSettings;
  monitorSettings: MonitorSettings;
  logger: Logger;
  metrics: Metrics;
}): { close(): Promise<void> } {
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const common = { connection, prefix: deps.prefix, logger: deps.logger };
  const queues = [
    createIngestQueue({ ...common, attempts: deps.settings.jobAttempts }),
    createLogRecordQueue({ ...common, attempts: deps.settings.jobAttempts }),
    createMetricPointQueue({ ...common, attempts: deps.settings.jobAttempts }),
    createEvaluationQueue(common),
    createMaintenanceQueue(common),
    createMonitorQueue(common),
    createWebhookQueue({ ...common, attempts: deps.monitorSettings.webhookAttempts, backoffMs: deps.monitorSettings.webhookBackoffMs }),
  ];
  registerQueueMetrics(deps.metrics, queues);
  return {
    async close() {
      await Promise.all(queues.map((q) => q.close()));
      await connection.quit();
    },
  };
}
