import * as v from 'valibot';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@aos/log';
import { throttledErrorLog } from './redis.ts';

/**
 * Outbound webhooks of monitors: one job per state change, retried with exponential
 * backoff. The job carries the body, not the secret: the deliverer reads the monitor's
 * current secret when it signs.
 */
export const WEBHOOK_QUEUE = 'monitor-webhooks';
export const WEBHOOK_JOB = 'deliver';

export const webhookPayloadSchema = v.object({
  projectId: v.string(),
  monitorId: v.string(),
  eventId: v.string(),
  url: v.string(),
  body: v.string(),
});
export type WebhookPayload = v.InferOutput<typeof webhookPayloadSchema>;

export function parseWebhookPayload(data: unknown): WebhookPayload {
  return v.parse(webhookPayloadSchema, data);
}

export function createWebhookQueue(opts: {
  connection: Redis;
  prefix: string;
  attempts: number;
  backoffMs: number;
  logger?: Logger;
}): Queue<WebhookPayload> {
  const queue = new Queue<WebhookPayload>(WEBHOOK_QUEUE, {
    connection: opts.connection,
    prefix: opts.prefix,
    defaultJobOptions: {
      attempts: opts.attempts,
      backoff: { type: 'exponential', delay: opts.backoffMs },
      removeOnComplete: true,
      // Deliveries that failed for good stay a while, to inspect.
      removeOnFail: 1000,
    },
  });
  queue.on('error', throttledErrorLog(opts.logger, 'webhook queue error'));
  return queue;
}

/** Queues one delivery; the event id is the job id, so an event is delivered once even if queued twice. */
export async function enqueueWebhook(queue: Queue<WebhookPayload>, payload: WebhookPayload): Promise<void> {
  await queue.add(WEBHOOK_JOB, payload, { jobId: `${payload.monitorId}-${payload.eventId}` });
}
