import * as v from 'valibot';
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@aos/log';
import { throttledErrorLog } from './redis.ts';

/** Periodic work of the writers (trace flags, trace rollups, retention), one job per tick across all writer processes. */
export const MAINTENANCE_QUEUE = 'maintenance';

/** The job that computes flags of traces gone quiet. */
export const TRACE_FLAGS_JOB = 'trace-flags';
/** The job that rolls up the traces of days gone quiet. */
export const TRACE_ROLLUPS_JOB = 'trace-rollups';
/** The job that deletes traces (and what derives from them) past their project's retention. */
export const RETENTION_JOB = 'retention';

/** Maintenance jobs carry no data: each pass finds its own work. */
export const maintenancePayloadSchema = v.object({});
export type MaintenancePayload = v.InferOutput<typeof maintenancePayloadSchema>;

export function parseMaintenancePayload(data: unknown): MaintenancePayload {
  return v.parse(maintenancePayloadSchema, data ?? {});
}

/** A failed pass is not retried: the next tick does the same work. A few failures are kept to inspect. */
const MAINTENANCE_JOB_OPTIONS: JobsOptions = { attempts: 1, removeOnComplete: true, removeOnFail: 100 };

export function createMaintenanceQueue(opts: { connection: Redis; prefix: string; logger?: Logger }): Queue<MaintenancePayload> {
  const queue = new Queue<MaintenancePayload>(MAINTENANCE_QUEUE, {
    connection: opts.connection,
    prefix: opts.prefix,
    defaultJobOptions: MAINTENANCE_JOB_OPTIONS,
  });
  queue.on('error', throttledErrorLog(opts.logger, 'maintenance queue error'));
  return queue;
}

/**
 * Runs a maintenance job every `everyMs`. Upserting is idempotent, so every writer may
 * call it at start; the last interval given wins and only one job runs per tick.
 */
export async function scheduleMaintenance(queue: Queue<MaintenancePayload>, job: string, everyMs: number): Promise<void> {
  await queue.upsertJobScheduler(job, { every: everyMs }, { name: job, data: {}, opts: MAINTENANCE_JOB_OPTIONS });
}
