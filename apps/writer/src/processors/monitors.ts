import type { Queue } from 'bullmq';
import type { MonitorSettings } from '@aos/config';
import type { Logger } from '@aos/log';
import type { Metrics } from '@aos/metrics';
import {
  closeWorker,
  MONITOR_EVALUATE_JOB,
  MONITOR_QUEUE,
  createMonitorQueue,
  createRedisConnection,
  createWebhookQueue,
  enqueueWebhook,
  parseMonitorPayload,
  scheduleMonitor,
  scheduledMonitorIds,
  startWorker,
  unscheduleMonitor,
  type MonitorPayload,
  type WebhookPayload,
  type WorkerStats,
} from '@aos/queue';
import { evaluateMonitor, getMonitor, isStorageUnavailable, listScheduledMonitors, type MonitorEvaluation, type Storage, type StoredMonitor } from '@aos/storage';

export interface MonitorProcessorDeps {
  storage: Storage;
  redisUrl: string;
  prefix: string;
  /** Evaluations in flight per writer. */
  concurrency: number;
  lockDurationMs: number;
  settings: MonitorSettings;
  logger: Logger;
  metrics: Metrics;
}

export interface MonitorProcessor {
  stats: WorkerStats & { evaluations: number };
  close(): Promise<void>;
}

/**
 * The monitor queue's processor: evaluates monitors on their schedules, on this thread
 * (which owns the storage connection), and queues a webhook delivery per state change
 * (the webhook processor sends them). Every writer runs one; BullMQ gives each
 * tick of a monitor to one of them. At start the schedulers are reconciled with the
 * stored monitors, so a Redis that lost them (or a monitor changed while no writer ran)
 * is put right.
 */
export function startMonitorProcessor(deps: MonitorProcessorDeps): MonitorProcessor {
  const log = deps.logger.child({ job: 'monitors' });
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const queue = createMonitorQueue({ connection, prefix: deps.prefix, logger: deps.logger });
  const webhookQueue = createWebhookQueue({
    connection,
    prefix: deps.prefix,
    attempts: deps.settings.webhookAttempts,
    backoffMs: deps.settings.webhookBackoffMs,
    logger: deps.logger,
  });
  const reconciled = reconcileSchedules(deps.storage, queue).catch((err: Error) =>
    log.error('could not reconcile monitor schedules', { error: err.message }),
  );
  let evaluations = 0;
  const started = startWorker<MonitorPayload>({
    queue: MONITOR_QUEUE,
    onOutcome: deps.metrics.jobOutcomes(MONITOR_QUEUE),
    connection,
    prefix: deps.prefix,
    concurrency: deps.concurrency,
    lockDurationMs: deps.lockDurationMs,
    logger: deps.logger,
    waits: isStorageUnavailable,
    processor: async (job) => {
      if (job.name !== MONITOR_EVALUATE_JOB) throw new Error(`unknown monitor job ${job.name}`);
      const payload = parseMonitorPayload(job.data);
      const monitor = await getMonitor(deps.storage, payload.projectId, payload.monitorId);
      if (!monitor || !monitor.definition.enabled) {
        // Deleted or disabled since it was scheduled: stop its ticks.
        await unscheduleMonitor(queue, payload.monitorId);
        return { skipped: true };
      }
      const evaluation = await evaluateMonitor(deps.storage, monitor, Date.now());
      evaluations += 1;
      await queueWebhooks(webhookQueue, monitor, evaluation);
      return { changes: evaluation.changes.length, findings: evaluation.findings.length };
    },
  });
  let closing: Promise<void> | undefined;
  return {
    stats: Object.defineProperty(started.stats as MonitorProcessor['stats'], 'evaluations', { get: () => evaluations, enumerable: true }),
    // Idempotent: an owner closing it after a test (or a signal) closed it is harmless.
    close() {
      closing ??= (async () => {
        await reconciled;
        await closeWorker(started.worker, deps.logger);
        await queue.close();
        await webhookQueue.close();
        await connection.quit();
      })();
      return closing;
    },
  };
}

/**
 * Schedules every enabled monitor and removes schedulers of monitors gone or disabled.
 * The schedulers are listed before the monitors: a monitor is stored before it is
 * scheduled, so one created meanwhile is either in both lists or in neither, never
 * unscheduled by mistake. A monitor deleted meanwhile may be scheduled again; its first
 * tick finds it gone and removes the scheduler.
 */
export async function reconcileSchedules(storage: Storage, queue: Queue<MonitorPayload>): Promise<void> {
  const scheduled = await scheduledMonitorIds(queue);
  const monitors = await listScheduledMonitors(storage);
  const wanted = new Set<string>();
  for (const m of monitors) {
    if (!m.enabled) continue;
    wanted.add(m.id);
    await scheduleMonitor(queue, { projectId: m.projectId, monitorId: m.id }, m.intervalSeconds * 1000);
  }
  for (const id of scheduled) if (!wanted.has(id)) await unscheduleMonitor(queue, id);
}

/** One delivery per state change of a monitor with a webhook; muted changes send nothing. */
async function queueWebhooks(queue: Queue<WebhookPayload>, monitor: StoredMonitor, evaluation: MonitorEvaluation): Promise<void> {
  const url = monitor.definition.webhookUrl;
  if (!url) return;
  for (const event of evaluation.changes.filter((e) => !e.muted)) {
    const body = JSON.stringify({
      type: 'monitor.state_changed',
      monitor: { id: monitor.id, projectId: monitor.projectId, name: monitor.definition.name, measure: monitor.definition.measure },
      event,
    });
    await enqueueWebhook(queue, { projectId: monitor.projectId, monitorId: monitor.id, eventId: event.id, url, body });
  }
}
