import { Hono } from 'hono';
import type { Queue } from 'bullmq';
import * as v from 'valibot';
import { parseOrThrow, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { listDeadLetters, type SpanBatchPayload } from '@aos/queue';
import { limitParam } from '../../filters/pagination.ts';

export interface DeadLetterRouteDeps {
  queue: Queue<SpanBatchPayload>;
  auth: KeyAuthenticator;
}

const listSchema = v.object({
  limit: limitParam(100),
});

/** Span batches that failed for good, for the caller's project; needs an admin key. */
export function deadLetterRoutes(deps: DeadLetterRouteDeps) {
  const app = new Hono<AuthEnv>();
  app.use('*', requireKey(deps.auth, 'admin'));
  app.get('/', async (c) => {
    const { limit } = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['limit'] }), 'query');
    return c.json({ data: await listDeadLetters(deps.queue, { projectId: c.var.apiKey.projectId, limit }) });
  });
  return app;
}
