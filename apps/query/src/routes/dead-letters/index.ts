import { Hono } from 'hono';
import type { Queue } from 'bullmq';
import * as v from 'valibot';
import { ApiError, parseOrThrow, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { listDeadLetters, retryDeadLetters, type IngestJobPayload } from '@aos/queue';
import { limitParam } from '../../filters/pagination.ts';

export interface DeadLetterRouteDeps {
  queue: Queue<IngestJobPayload>;
  auth: KeyAuthenticator;
}

export const listSchema = v.object({
  limit: limitParam(100),
});

/** BullMQ job ids as the ingest queue issues them. */
const JOB_ID = /^\d{1,20}$/;

/**
 * Span batches that failed for good, for the caller's project; needs an admin key.
 * GET lists them; POST /retry puts all of them back in the queue, POST /{jobId}/retry one.
 */
export function deadLetterRoutes(deps: DeadLetterRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.use('*', requireKey(deps.auth, 'admin'));
  app.get('/', async (c) => {
    const { limit } = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['limit'] }), 'query');
    return c.json({ data: await listDeadLetters(deps.queue, { projectId: c.var.apiKey.projectId, limit }) });
  });
  app.post('/retry', async (c) => {
    queryParams(c.req.url, { single: [] });
    return c.json({ retried: await retryDeadLetters(deps.queue, { projectId: c.var.apiKey.projectId }) });
  });
  app.post('/:jobId/retry', async (c) => {
    queryParams(c.req.url, { single: [] });
    const jobId = c.req.param('jobId');
    if (!JOB_ID.test(jobId)) {
      throw new ApiError('invalid_request', `invalid job id ${JSON.stringify(jobId)}: expected the jobId of a dead letter`, [{ field: 'jobId', message: 'expected digits' }]);
    }
    // Another project's batch is as unknown to the caller as one that never was.
    const job = await deps.queue.getJob(jobId);
    if (!job || job.data?.projectId !== c.var.apiKey.projectId) throw new ApiError('not_found', `dead letter ${jobId} not found`);
    return c.json({ retried: await retryDeadLetters(deps.queue, { projectId: c.var.apiKey.projectId, jobId }) });
  });
  return app;
}
