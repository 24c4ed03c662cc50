import * as v from 'valibot';
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@aos/log';
import { throttledErrorLog } from './redis.ts';

/**
 * Monitor evaluations: one BullMQ job scheduler per monitor, keyed by its id, so however
 * many writers run, each tick of a monitor is one job, taken by one of them.
 */
export const MONITOR_QUEUE = 'monitors';
export const MONITOR_EVALUATE_JOB = 'evaluate';

export const monitorPayloadSchema = v.object({ projectId: v.string(), monitorId: v.string() });
export type MonitorPayload = v.InferOutput<typeof monitorPayloadSchema>;

export function parseMonitorPayload(data: unknown): MonitorPayload {
  return v.parse(monitorPayloadSchema, data);
}

/** A failed evaluation is not retried: the next tick evaluates again. A few failures are kept to inspect. */
const MONITOR_JOB_OPTIONS: JobsOptions = { attempts: 1, removeOnComplete: true, removeOnFail: 100 };

export function createMonitorQueue(opts: { connection: Redis; prefix: string; logger?: Logger }): Queue<MonitorPayload> {
  const queue = new Queue<MonitorPayload>(MONITOR_QUEUE, {
    connection: opts.connection,
    prefix: opts.prefix,
    defaultJobOptions: MONITOR_JOB_OPTIONS,
  });
  queue.on('error', throttledErrorLog(opts.logger, 'monitor queue error'));
  return queue;
}

function schedulerId(monitorId: string): string {
  return `monitor:${monitorId}`;
}

/** Evaluates the monitor every `everyMs` from now on (idempotent; a new interval replaces the old). */
export async function scheduleMonitor(queue: Queue<MonitorPayload>, payload: MonitorPayload, everyMs: number): Promise<void> {
  await queue.upsertJobScheduler(
    schedulerId(payload.monitorId),
    { every: everyMs },
    { name: MONITOR_EVALUATE_JOB, data: payload, opts: MONITOR_JOB_OPTIONS },
  );
}

/** Stops evaluating the monitor (deleted or disabled). */
export async function unscheduleMonitor(queue: Queue<MonitorPayload>, monitorId: string): Promise<void> {
  await queue.removeJobScheduler(schedulerId(monitorId));
}

/** Ids of the monitors that have a scheduler. */
export async function scheduledMonitorIds(queue: Queue<MonitorPayload>): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let start = 0; ; start += 500) {
    const page = await queue.getJobSchedulers(start, start + 499);
    for (const s of page) if (s.key.startsWith('monitor:')) ids.add(s.key.slice('monitor:'.length));
    if (page.length < 500) return ids;
  }
}
