import * as v from 'valibot';
import { DelayedError, Queue, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@aos/log';
import { throttledErrorLog } from './redis.ts';

/** Evaluator work done by the writers: automatic runs on completed traces, and backfill chunks. */
export const EVALUATION_QUEUE = 'evaluations';
export const EVALUATOR_RUN_JOB = 'evaluator-run';
export const BACKFILL_CHUNK_JOB = 'backfill-chunk';

const id = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
const nullableId = v.nullable(v.pipe(v.string(), v.maxLength(500)));

export const evaluatorRunPayloadSchema = v.object({
  projectId: id,
  evaluatorId: id,
  item: v.object({ traceId: nullableId, spanId: nullableId, sessionId: nullableId }),
});
export type EvaluatorRunPayload = v.InferOutput<typeof evaluatorRunPayloadSchema>;

export const backfillChunkPayloadSchema = v.object({
  projectId: id,
  backfillId: id,
  chunk: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type BackfillChunkPayload = v.InferOutput<typeof backfillChunkPayloadSchema>;

export type EvaluationPayload = EvaluatorRunPayload | BackfillChunkPayload;

/**
 * Jobs are retried with backoff when the writer fails them (storage unreachable); an item
 * the evaluator cannot judge is not a job failure (it is recorded as a failed judgement).
 */
const EVALUATION_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: 1000,
  removeOnFail: 1000,
};

export function createEvaluationQueue(opts: { connection: Redis; prefix: string; logger?: Logger }): Queue<EvaluationPayload> {
  const queue = new Queue<EvaluationPayload>(EVALUATION_QUEUE, {
    connection: opts.connection,
    prefix: opts.prefix,
    defaultJobOptions: EVALUATION_JOB_OPTIONS,
  });
  queue.on('error', throttledErrorLog(opts.logger, 'evaluation queue error'));
  return queue;
}

/**
 * Queues chunk `chunk` of a backfill. The job id names the backfill and the chunk, so a
 * rerun that queues the same chunk again adds nothing.
 */
export async function enqueueBackfillChunk(queue: Queue<EvaluationPayload>, payload: BackfillChunkPayload): Promise<void> {
  await queue.add(BACKFILL_CHUNK_JOB, payload, { jobId: `${payload.backfillId}-${payload.chunk}` });
}

export async function enqueueEvaluatorRuns(queue: Queue<EvaluationPayload>, runs: readonly EvaluatorRunPayload[]): Promise<void> {
  if (runs.length === 0) return;
  await queue.addBulk(runs.map((data) => ({ name: EVALUATOR_RUN_JOB, data })));
}

/**
 * Puts an active job back to wait `delayMs` without using one of its attempts (a writer
 * stopping in the middle of it is not the job's fault). Throw the returned error from the
 * processor, as BullMQ requires.
 */
export async function postponeJob(job: Job, token: string | undefined, delayMs: number): Promise<Error> {
  await job.moveToDelayed(Date.now() + delayMs, token);
  return new DelayedError();
}
