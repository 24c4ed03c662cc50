import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { Queue } from 'bullmq';
import type { MonitorSettings } from '@aos/config';
import { worstState } from '@aos/domain';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import { scheduleMonitor, unscheduleMonitor, type MonitorPayload } from '@aos/queue';
import {
  MEASURES,
  acknowledgeMonitor,
  createMonitor,
  deleteMonitor,
  getMonitor,
  listMonitorEvents,
  listMonitors,
  measureByName,
  measureMonitor,
  muteMonitor,
  saveMonitor,
  unmuteMonitor,
  type MonitorDefinition,
  type Storage,
  type StoredMonitor,
} from '@aos/storage';
import { MILLIS_CURSOR_PART, decodeKeyCursor, encodeKeyCursor, limitParam } from '../../filters/pagination.ts';
import { timeParam } from '../../filters/time.ts';
import { parseCreateMonitor, parsePatchMonitor, parsePreviewMonitor } from './monitor-input.ts';
import { ensureOutboundUrl, jsonBody, requestProject } from '../../request-helpers.ts';
import { ensureDimensionKeys, ensureFilterDimensions } from '../../filters/known-dimensions.ts';
import { dimensionOfGroup } from '../../filters/group-by.ts';
import { monitorViews } from './monitor-view.ts';

export interface MonitorRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  monitorQueue: Queue<MonitorPayload>;
  monitorSettings: MonitorSettings;
}

const MONITOR_ID = /^mon_[0-9a-f]{28}$/;

export const listSchema = v.object({ projectId: v.optional(v.string()), limit: limitParam(50), cursor: v.optional(v.string()) });
export const muteSchema = v.strictObject(
  { until: v.optional(v.nullable(v.pipe(v.union([v.string(), v.number()], 'must be a time'), v.transform(String), timeParam))) },
  () => 'unknown field; the body takes only until',
);

/** Monitors of the caller's project: read to list, preview and read events; write to change them. */
export function monitorRoutes(deps: MonitorRouteDeps) {
  const app = new Hono<AuthEnv>();
  const limits = { minIntervalSeconds: deps.monitorSettings.minIntervalSeconds };

  app.get('/metrics', requireKey(deps.auth, 'read'), (c) => {
    queryParams(c.req.url, { single: [] });
    return c.json({
      data: MEASURES.map((m) => ({ name: m.name, unit: m.unit, description: m.description, needsScoreName: 'needsScore' in m && m.needsScore === true })),
    });
  });

  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const query = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['projectId', 'limit', 'cursor'] }), 'query');
    const projectId = projectFor(c.var.apiKey, query.projectId);
    const after = query.cursor === undefined ? undefined : decodeKeyCursor(query.cursor, { id: MONITOR_ID }).id;
    const page = await listMonitors(deps.storage, projectId, { limit: query.limit, ...(after ? { afterId: after } : {}) });
    return c.json({
      data: await monitorViews(deps.storage, projectId, page.monitors),
      nextCursor: page.nextAfterId ? encodeKeyCursor({ id: page.nextAfterId }) : null,
    });
  });

  app.post('/', requireKey(deps.auth, 'write'), async (c) => {
    const projectId = requestProject(c);
    const parsed = parseCreateMonitor(await jsonBody(c), c.var.apiKey, limits);
    await ensureMonitorDimensions(deps.storage, projectId, parsed.definition);
    await ensureOutboundUrl(parsed.definition.webhookUrl, deps.monitorSettings.allowPrivateUrls, 'webhookUrl');
    const monitor = await createMonitor(deps.storage, { projectId, ...parsed, createdBy: c.var.apiKey.id });
    await syncSchedule(deps.monitorQueue, monitor);
    return c.json(await viewOf(deps.storage, monitor), 201);
  });

  app.post('/preview', requireKey(deps.auth, 'read'), async (c) => {
    const projectId = requestProject(c);
    const definition = parsePreviewMonitor(await jsonBody(c), c.var.apiKey, limits);
    await ensureMonitorDimensions(deps.storage, projectId, definition);
    const measured = await measureMonitor(deps.storage, projectId, definition, Date.now());
    return c.json({
      measure: definition.measure,
      unit: measureByName(definition.measure).unit,
      windowStart: measured.windowStart,
      windowEnd: measured.windowEnd,
      // Ungrouped: the one value; grouped: the worst group decides, as for a saved monitor.
      value: definition.groupBy ? null : (measured.groups[0]?.value ?? null),
      state: worstState(measured.groups.map((g) => g.state)),
      groups: measured.groups,
    });
  });

  app.get('/:id', requireKey(deps.auth, 'read'), async (c) => {
    const monitor = await found(c);
    return c.json(await viewOf(deps.storage, monitor));
  });

  app.patch('/:id', requireKey(deps.auth, 'write'), async (c) => {
    const current = await found(c);
    const parsed = parsePatchMonitor(await jsonBody(c), current, c.var.apiKey, limits);
    await ensureMonitorDimensions(deps.storage, current.projectId, parsed.definition);
    await ensureOutboundUrl(parsed.definition.webhookUrl, deps.monitorSettings.allowPrivateUrls, 'webhookUrl');
    const saved = await saveMonitor(deps.storage, { ...current, ...parsed });
    await syncSchedule(deps.monitorQueue, saved);
    return c.json(await viewOf(deps.storage, saved));
  });

  app.delete('/:id', requireKey(deps.auth, 'write'), async (c) => {
    const monitor = await found(c);
    await deleteMonitor(deps.storage, monitor.projectId, monitor.id);
    await unscheduleMonitor(deps.monitorQueue, monitor.id);
    return c.body(null, 204);
  });

  app.get('/:id/events', requireKey(deps.auth, 'read'), async (c) => {
    const query = parseOrThrow(listSchema, queryParams(c.req.url, { single: ['projectId', 'limit', 'cursor'] }), 'query');
    const monitor = await found(c, projectFor(c.var.apiKey, query.projectId));
    const before = query.cursor === undefined ? undefined : decodeKeyCursor(query.cursor, { at: MILLIS_CURSOR_PART, id: /^mev_[0-9a-f]{24}$/ });
    const page = await listMonitorEvents(deps.storage, monitor.projectId, monitor.id, {
      limit: query.limit,
      ...(before ? { before: { atMs: Number(before.at), id: before.id } } : {}),
    });
    return c.json({ data: page.events, nextCursor: page.next ? encodeKeyCursor({ at: String(page.next.atMs), id: page.next.id }) : null });
  });

  app.post('/:id/mute', requireKey(deps.auth, 'write'), async (c) => {
    const monitor = await found(c);
    // An empty body mutes until unmuted.
    const body = parseOrThrow(muteSchema, (await jsonBody(c)) ?? {}, 'body');
    const until = body.until ?? null;
    if (until !== null && until <= Date.now()) {
      throw new ApiError('invalid_request', 'until: must be in the future', [{ field: 'until', message: 'must be in the future' }]);
    }
    const saved = await muteMonitor(deps.storage, monitor, until, c.var.apiKey.id);
    return c.json(await viewOf(deps.storage, saved));
  });

  app.post('/:id/unmute', requireKey(deps.auth, 'write'), async (c) => {
    const monitor = await found(c);
    const saved = await unmuteMonitor(deps.storage, monitor, c.var.apiKey.id);
    return c.json(await viewOf(deps.storage, saved));
  });

  app.post('/:id/acknowledge', requireKey(deps.auth, 'write'), async (c) => {
    const monitor = await found(c);
    const result = await acknowledgeMonitor(deps.storage, monitor, c.var.apiKey.id);
    if (result.inAlert.length === 0) throw new ApiError('conflict', `monitor ${monitor.id} is not in alert: nothing to acknowledge`);
    return c.json({ ...(await viewOf(deps.storage, monitor)), acknowledgedGroups: result.acknowledged });
  });

  /** The monitor named by the path, in the key's project; another project's is "not found". */
  async function found(c: Context<AuthEnv>, projectId = requestProject(c)): Promise<StoredMonitor> {
    const id = c.req.param('id')!;
    const monitor = MONITOR_ID.test(id) ? await getMonitor(deps.storage, projectId, id) : null;
    if (!monitor) throw new ApiError('not_found', `monitor ${id} not found`);
    return monitor;
  }

  return app;
}

async function viewOf(storage: Storage, monitor: StoredMonitor) {
  return (await monitorViews(storage, monitor.projectId, [monitor]))[0]!;
}

/** Evaluations follow the monitor: scheduled at its interval while enabled, stopped otherwise. */
async function syncSchedule(queue: Queue<MonitorPayload>, monitor: StoredMonitor): Promise<void> {
  if (monitor.definition.enabled) {
    await scheduleMonitor(queue, { projectId: monitor.projectId, monitorId: monitor.id }, monitor.definition.intervalSeconds * 1000);
  } else {
    await unscheduleMonitor(queue, monitor.id);
  }
}

/** A monitor may group or filter only by dimensions the project has. */
async function ensureMonitorDimensions(storage: Storage, projectId: string, definition: MonitorDefinition): Promise<void> {
  const grouped = dimensionOfGroup(definition.groupBy);
  if (grouped !== undefined) await ensureDimensionKeys(storage, projectId, [grouped], 'groupBy');
  await ensureFilterDimensions(storage, projectId, definition.filter);
}
