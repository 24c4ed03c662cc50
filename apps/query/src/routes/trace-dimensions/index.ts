import { Hono } from 'hono';
import * as v from 'valibot';
import { DIMENSION_KEY_PATTERN } from '@aos/domain';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import type { SettingsChangePublisher } from '@aos/queue';
import {
  DimensionLimitError,
  MAX_DIMENSION_KEYS,
  addDimensionKeys,
  discoverMetadataKeys,
  listDimensionKeys,
  type Storage,
} from '@aos/storage';
import { bodyLimitGuard } from '../../guards/body-limit.ts';
import { jsonBody, requestProject, strictBodyMessage } from '../../request-helpers.ts';

/** Largest body of an addition: 50 keys of at most 128 ASCII characters take under 7 KB as JSON. */
export const DIMENSION_KEYS_BODY_MAX_BYTES = 16 * 1024;

export interface TraceDimensionRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  announceSettingsChange: SettingsChangePublisher;
}

const DAY_MS = 86_400_000;

export const listSchema = v.object({
  projectId: v.optional(v.string()),
  // Discovery scans recent spans, so it runs only when asked for.
  discover: v.optional(v.pipe(v.picklist(['true', 'false'], 'must be true or false'), v.transform((s) => s === 'true')), 'false'),
  discoverDays: v.optional(
    v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1, 'must be at least 1'), v.maxValue(30, 'must be at most 30')),
    '1',
  ),
});

const dimensionKey = v.pipe(
  v.string('must be a string'),
  v.regex(DIMENSION_KEY_PATTERN, 'must be 1-128 letters, digits, "_", ".", "-" or "/" (no colon), not starting with a punctuation mark'),
);
export const addSchema = v.strictObject(
  { keys: v.pipe(v.array(dimensionKey, 'must be an array of keys'), v.minLength(1, 'must name at least one key'), v.maxLength(MAX_DIMENSION_KEYS)) },
  strictBodyMessage,
);

/**
 * A project's metadata dimensions: keys whose values ingest pulls out of every new span,
 * for `dim=key:value` filters and `groupBy=dim:key`. Listing can also report metadata keys
 * seen in recent spans that are not dimensions yet.
 */
export function traceDimensionRoutes(deps: TraceDimensionRouteDeps) {
  const app = new Hono<AuthEnv>();

  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const query = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['projectId', 'discover', 'discoverDays'] }), 'query');
    const projectId = projectFor(c.var.apiKey, query.projectId);
    const keys = await listDimensionKeys(deps.storage, projectId);
    if (!query.discover) return c.json({ data: keys, maxKeys: MAX_DIMENSION_KEYS });
    const sinceMs = Date.now() - query.discoverDays * DAY_MS;
    const found = await discoverMetadataKeys(deps.storage, { projectId, sinceMs, exclude: keys.map((k) => k.key), limit: 50 });
    return c.json({
      data: keys,
      maxKeys: MAX_DIMENSION_KEYS,
      suggestions: { since: new Date(sinceMs).toISOString(), sampledSpans: found.sampledSpans, keys: found.candidates },
    });
  });

  app.post('/', bodyLimitGuard(DIMENSION_KEYS_BODY_MAX_BYTES), requireKey(deps.auth, 'write'), async (c) => {
    const projectId = requestProject(c);
    const body = parseOrThrow(addSchema, await jsonBody(c), 'body');
    let added: string[];
    try {
      added = await addDimensionKeys(deps.storage, { projectId, keys: body.keys, addedBy: c.var.apiKey.id });
    } catch (err) {
      if (err instanceof DimensionLimitError) throw new ApiError('invalid_request', err.message, [{ field: 'keys', message: err.message }]);
      throw err;
    }
    if (added.length > 0) await deps.announceSettingsChange(projectId);
    return c.json(
      {
        added,
        alreadyPresent: body.keys.filter((k) => !added.includes(k)),
        data: await listDimensionKeys(deps.storage, projectId),
        note: 'Dimension values are extracted from spans ingested from now on; spans already stored keep no value for new keys.',
      },
      added.length > 0 ? 201 : 200,
    );
  });

  return app;
}
