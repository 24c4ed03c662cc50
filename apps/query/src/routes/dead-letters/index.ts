import { Hono, type Context } from 'hono';
import type { Queue } from 'bullmq';
import * as v from 'valibot';
import { ApiError, parseOrThrow, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { listDeadLetters, removeDeadLetters, retryDeadLetters, type IngestJobPayload } from '@aos/queue';
import { limitParam } from '../../filters/pagination.ts';

export interface DeadLetterRouteDeps {
  queue: Queue<IngestJobPayload>;
  auth: KeyAuthenticator;
}

export const listSchema = v.object({
  limit: limitParam(100),
});

/** Job ids of the ingest queue: UUIDs ingest chooses (with the key of the job's rows), or BullMQ's counter (older versions). */
const JOB_ID = /^(\d{1,20}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * Span batches that failed for good, for the caller's project; needs an admin key.
 * GET lists them; POST /retry puts all of them back in the queue, POST /{jobId}/retry one;
 * DELETE / removes all of them for good (with their rows), DELETE /{jobId} one.
 */
export function deadLetterRoutes(deps: DeadLetterRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.use('*', requireKey(deps.auth, 'admin'));
  app.get('/', async (c) => {
    const { limit } = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['limit'] }), 'query');
    return c.json({ data: await listDeadLetters(deps.queue, { projectId: c.var.apiKey.projectId, limit }) });
  });
  const retry = async (c: Context<AuthEnv>) => c.json({ retried: await retryDeadLetters(deps.queue, await lettersOf(deps.queue, c)) });
  const remove = async (c: Context<AuthEnv>) => c.json({ removed: await removeDeadLetters(deps.queue, await lettersOf(deps.queue, c)) });
  app.post('/retry', retry);
  app.post('/:jobId/retry', retry);
  app.delete('/', remove);
  app.delete('/:jobId', remove);
  return app;
}

/**
 * Which of the caller's dead letters a request is about: all of them, or the one its path
 * names (400 when that cannot be a job id, 404 when the project has no such job).
 */
async function lettersOf(queue: Queue<IngestJobPayload>, c: Context<AuthEnv>): Promise<{ projectId: string; jobId?: string }> {
  queryParams(c.req.url, { single: [] });
  const projectId = c.var.apiKey.projectId;
  const jobId = c.req.param('jobId');
  if (jobId === undefined) return { projectId };
  if (!JOB_ID.test(jobId)) {
    throw new ApiError('invalid_request', `invalid job id ${JSON.stringify(jobId)}: expected the jobId of a dead letter`, [
      { field: 'jobId', message: 'expected digits or a UUID' },
    ]);
  }
  // Another project's batch is as unknown to the caller as one that never was.
  const job = await queue.getJob(jobId);
  if (!job || job.data?.projectId !== projectId) throw new ApiError('not_found', `dead letter ${jobId} not found`);
  return { projectId, jobId };
}
