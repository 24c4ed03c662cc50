import { Hono } from 'hono';
import * as v from 'valibot';
import { parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { bucketStarts, evaluatorScoreStats, listEvaluators, type Storage } from '@aos/storage';
import { bucketSeconds, intervalParam } from '../../filters/interval.ts';
import { readWindow, timeParam } from '../../filters/time.ts';

/** Evaluators named in one answer (their names are looked up page by page). */
const NAME_PAGE = 500;

export const statsSchema = v.object({
  projectId: v.optional(v.string()),
  startTime: v.optional(timeParam),
  endTime: v.optional(timeParam),
  interval: intervalParam,
  evaluatorId: v.optional(v.pipe(v.string(), v.regex(/^ev_[0-9a-f]{28}$/, 'must be an evaluator id'))),
});

/**
 * `GET /trace-evaluators/stats`: per evaluator and time bucket (by judgement time), how
 * many scores it wrote, their mean and label counts. Every bucket of the window is present.
 */
export function evaluatorStatsRoutes(deps: { storage: Storage; auth: KeyAuthenticator }) {
  const app = new Hono<AuthEnv>();
  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const query = parseOrThrow(
      statsSchema,
      queryParams(c.req.url, { single: ['projectId', 'startTime', 'endTime', 'interval', 'evaluatorId'] }),
      'query',
    );
    const projectId = projectFor(c.var.apiKey, query.projectId);
    const { startTimeMs: startMs, endTimeMs: endMs } = readWindow(query.startTime, query.endTime);
    const step = bucketSeconds(startMs, endMs, query.interval);
    const [stats, names] = await Promise.all([
      evaluatorScoreStats(deps.storage, { projectId, startMs, endMs, stepSeconds: step, ...(query.evaluatorId ? { evaluatorId: query.evaluatorId } : {}) }),
      evaluatorNames(deps.storage, projectId),
    ]);
    const starts = bucketStarts(startMs, endMs, step);
    return c.json({
      intervalSeconds: step,
      data: stats.map((s) => {
        const byStart = new Map(s.buckets.map((b) => [b.start, b]));
        return {
          evaluatorId: s.evaluatorId,
          // null once the evaluator is deleted: its scores stay.
          name: names.get(s.evaluatorId) ?? null,
          buckets: starts.map((sec) => {
            const start = new Date(sec * 1000).toISOString();
            return byStart.get(start) ?? { start, count: 0, mean: null, labels: {} };
          }),
        };
      }),
    });
  });
  return app;
}

async function evaluatorNames(storage: Storage, projectId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  let afterId: string | undefined;
  for (;;) {
    const page = await listEvaluators(storage, projectId, { limit: NAME_PAGE, ...(afterId ? { afterId } : {}) });
    for (const e of page.evaluators) names.set(e.id, e.name);
    if (page.nextAfterId === null) return names;
    afterId = page.nextAfterId;
  }
}
