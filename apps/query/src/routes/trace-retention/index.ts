import { Hono } from 'hono';
import * as v from 'valibot';
import type { RetentionSettings } from '@aos/config';
import { parseOrThrow, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { getRetentionOverride, saveRetentionOverride, type RetentionOverride, type Storage } from '@aos/storage';
import { jsonBody, requestProject, strictBodyMessage } from '../../request-helpers.ts';

export interface TraceRetentionRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  /** RETENTION_DAYS, shown beside the project's own. */
  retentionSettings: RetentionSettings;
}

/** A hundred years: the same bound as RETENTION_DAYS. */
const MAX_DAYS = 36_500;

export const retentionSchema = v.strictObject(
  {
    days: v.nullable(
      v.pipe(
        v.number('must be a whole number of days, or null to keep traces for ever'),
        v.integer('must be a whole number of days'),
        v.minValue(1, 'must be at least 1'),
        v.maxValue(MAX_DAYS, `must be at most ${MAX_DAYS}`),
      ),
    ),
  },
  strictBodyMessage,
);

/**
 * How long the project's traces are kept: RETENTION_DAYS unless the project set its own.
 * Anyone who reads the project may see it; only an admin key changes it, since shortening it
 * deletes data on the writers' next retention pass.
 */
export function traceRetentionRoutes(deps: TraceRetentionRouteDeps) {
  const app = new Hono<AuthEnv>();
  const view = (projectId: string, override: RetentionOverride | null) => ({
    projectId,
    // What applies: the project's own retention, else the default (null: kept for ever).
    days: override ? override.days : deps.retentionSettings.defaultDays,
    defaultDays: deps.retentionSettings.defaultDays,
    override: override && { days: override.days, updatedAt: override.updatedAt, updatedBy: override.updatedBy },
  });

  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const projectId = requestProject(c);
    return c.json(view(projectId, await getRetentionOverride(deps.storage, projectId)));
  });

  app.put('/', requireKey(deps.auth, 'admin'), async (c) => {
    const projectId = requestProject(c);
    const { days } = parseOrThrow(retentionSchema, await jsonBody(c), 'body');
    return c.json(view(projectId, await saveRetentionOverride(deps.storage, { projectId, days, updatedBy: c.var.apiKey.id })));
  });

  // Back to the default.
  app.delete('/', requireKey(deps.auth, 'admin'), async (c) => {
    const projectId = requestProject(c);
    return c.json(view(projectId, await saveRetentionOverride(deps.storage, { projectId, days: undefined, updatedBy: c.var.apiKey.id })));
  });

  return app;
}
