import type { MonitorSettings } from '@aos/config';
import { outboundUrlProblem } from '@aos/http';
import type { Logger } from '@aos/log';
import type { Metrics } from '@aos/metrics';
import { closeWorker, WEBHOOK_QUEUE, createRedisConnection, parseWebhookPayload, startWorker, type WebhookPayload } from '@aos/queue';
import { getMonitor, isStorageUnavailable, type Storage } from '@aos/storage';
import { WEBHOOK_HEADERS, signWebhook } from './webhook-signature.ts';

/**
 * The webhook queue's processor: delivers monitor webhooks: POSTs the body signed with the monitor's secret. Anything
 * but a 2xx answer (or no answer within WEBHOOK_TIMEOUT_MS) fails the attempt, and
 * BullMQ retries it with exponential backoff up to WEBHOOK_ATTEMPTS times.
 */
export function startWebhookProcessor(deps: {
  storage: Storage;
  redisUrl: string;
  prefix: string;
  /** Deliveries in flight per writer. */
  concurrency: number;
  lockDurationMs: number;
  settings: MonitorSettings;
  logger: Logger;
  metrics: Metrics;
}): { close(): Promise<void> } {
  const connection = createRedisConnection(deps.redisUrl, deps.logger);
  const started = startWorker<WebhookPayload>({
    queue: WEBHOOK_QUEUE,
    onOutcome: deps.metrics.jobOutcomes(WEBHOOK_QUEUE),
    connection,
    prefix: deps.prefix,
    concurrency: deps.concurrency,
    lockDurationMs: deps.lockDurationMs,
    logger: deps.logger,
    waits: isStorageUnavailable,
    processor: async (job) => {
      const payload = parseWebhookPayload(job.data);
      const monitor = await getMonitor(deps.storage, payload.projectId, payload.monitorId);
      // A monitor deleted, or whose webhook was removed, since the change: nothing to send.
      if (!monitor || !monitor.webhookSecret) return { skipped: true };
      // Checked again before each delivery: the host's DNS answer may have changed since it was saved.
      const problem = await outboundUrlProblem(payload.url, deps.settings.allowPrivateUrls);
      if (problem) throw new Error(`webhook not sent: ${problem}`);
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await fetch(payload.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'aos-monitor-webhook/1',
          [WEBHOOK_HEADERS.id]: payload.eventId,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: signWebhook(monitor.webhookSecret, timestamp, payload.body),
        },
        body: payload.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(deps.settings.webhookTimeoutMs),
      });
      await response.body?.cancel();
      if (response.status < 200 || response.status >= 300) throw new Error(`webhook answered ${response.status}`);
      return { status: response.status };
    },
  });
  return {
    async close() {
      await closeWorker(started.worker, deps.logger);
      await connection.quit();
    },
  };
}
