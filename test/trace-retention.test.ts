import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, raiseFinding } from '@aos/storage';
import { writerSettings } from '@aos/config';
import { runRetentionPass, runTraceFlagsPass, runTraceRollupPass } from '@aos/writer';
import type { ErrorBody } from './support/api-types.ts';
import { eventually, jsonCall, startTestService, type TestService } from './support/service.ts';

const DAY = 86_400_000;
const now = Date.now();
/** Per project, a trace started 40 days ago and one started a day ago. */
const TRACES = {
  default: { old: 'd0'.repeat(16), recent: 'd1'.repeat(16) },
  other: { old: 'e0'.repeat(16), recent: 'e1'.repeat(16) },
} as const;
type Project = keyof typeof TRACES;
const START = { old: now - 40 * DAY, recent: now - DAY } as const;
type Age = keyof typeof START;

let svc: TestService;
const keys: Record<string, string> = {};

interface RetentionView {
  projectId: string;
  days: number | null;
  defaultDays: number | null;
  override: { days: number | null; updatedAt: string; updatedBy: string } | null;
}

async function ingest(project: Project, key: string) {
  const spans = (['old', 'recent'] as const).map((age) => ({
    traceId: TRACES[project][age],
    spanId: '00000000000000a1',
    name: `${age} run`,
    startTimeUnixNano: String(START[age] * 1e6),
    endTimeUnixNano: String((START[age] + 500) * 1e6),
  }));
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] }),
  });
  expect(res.status).toBe(200);
}

async function count(sql: string, params: Record<string, unknown>): Promise<number> {
  const result = await svc.service.storage.client.query({ query: `SELECT count() AS n FROM ${sql}`, query_params: params, format: 'JSONEachRow' });
  return Number((await result.json<{ n: string }>())[0]!.n);
}

/** Rows each table holds for one project's trace of that age (and for the rows seeded with that age's time). */
async function rowsOf(project: Project, age: Age): Promise<Record<string, number>> {
  const p = { projectId: project, traceId: TRACES[project][age], id: `${project}-${age}`, hour: Math.floor(START[age] / 3_600_000) * 3600 };
  const byTrace = (table: string) => count(`${table} WHERE project_id = {projectId:String} AND trace_id = {traceId:String}`, p);
  const byHour = (table: string) => count(`${table} WHERE project_id = {projectId:String} AND hour = toDateTime({hour:UInt32})`, p);
  return {
    spans: await byTrace('spans'),
    trace_hours: await byTrace('trace_hours'),
    trace_starts: await byTrace('trace_starts'),
    scores: await byTrace('scores'),
    trace_flags: await byTrace('trace_flags'),
    trace_rollups: await byTrace('trace_rollups'),
    trace_rollup_hours: await byHour('trace_rollup_hours'),
    trace_hour_figures: await byHour('trace_hour_figures'),
    span_hour_writes: await byHour('span_hour_writes'),
    exports: await count('exports WHERE project_id = {projectId:String} AND id = {id:String}', p),
    findings: await count("findings WHERE project_id = {projectId:String} AND dedupe_key = concat('retention:', {id:String})", p),
    finding_history: await count('finding_history WHERE project_id = {projectId:String} AND id = {id:String}', p),
    monitor_events: await count('monitor_events WHERE project_id = {projectId:String} AND id = {id:String}', p),
    evaluator_backfill_items: await count('evaluator_backfill_items WHERE project_id = {projectId:String} AND item_key = {traceId:String}', p),
  };
}

const TABLES = ['spans', 'trace_hours', 'trace_starts', 'scores', 'trace_flags', 'trace_rollups', 'trace_rollup_hours', 'trace_hour_figures', 'span_hour_writes', 'exports', 'findings', 'finding_history', 'monitor_events', 'evaluator_backfill_items'];
const none = Object.fromEntries(TABLES.map((t) => [t, 0]));

/** Every table has at least one row of it. */
function allPresent(rows: Record<string, number>): boolean {
  return TABLES.every((t) => (rows[t] ?? 0) > 0);
}

/** The rows no trace makes through the API: an export, a finding with history, a monitor event and a backfill item, dated at the trace's start. */
async function seedRecords(project: Project, age: Age) {
  const { client } = svc.service.storage;
  const id = `${project}-${age}`;
  const at = (START[age] / 1000).toFixed(3);
  const insert = (table: string, row: Record<string, unknown>) => client.insert({ table, values: [{ project_id: project, ...row }], format: 'JSONEachRow' });
  await insert('exports', { id, key_id: 'k', kind: 'traces', format: 'jsonl', filter: '{}', status: 'completed', started_at: at, version: 1 });
  const { finding } = await raiseFinding(svc.service.storage, {
    projectId: project,
    dedupeKey: `retention:${id}`,
    title: 'seeded',
    description: 'seeded',
    severity: 'low',
    investigator: { kind: 'trace_flag', id: 'loop' },
    asset: { type: 'trace', id: TRACES[project][age] },
    seenAtMs: START[age],
  });
  await insert('finding_history', { finding_id: finding.id, at, id, actor: 'k', field: 'status', from_value: 'open', to_value: 'investigating' });
  await insert('monitor_events', { monitor_id: 'm', at, id, kind: 'state' });
  await insert('evaluator_backfill_items', { backfill_id: 'b', item_key: TRACES[project][age], judged_at: at });
}

beforeAll(async () => {
  // The test runs the flags, rollup and retention passes itself: the service's own find
  // nothing quiet for a day, and its retention pass has no default to apply.
  svc = await startTestService({
    TRACE_QUIET_MS: String(DAY),
    TRACE_ROLLUP_QUIET_MS: String(DAY),
    RETENTION_INTERVAL_MS: String(7 * DAY),
    API_KEY_CACHE_TTL_MS: '0',
  });
  const make = async (projectId: string, scopes: ('ingest' | 'read' | 'write' | 'admin')[]) =>
    (await createApiKey(svc.service.storage, { projectId, name: scopes.join('+'), scopes })).secret;
  keys.default = svc.key;
  keys.defaultWrite = await make('default', ['read', 'write']);
  keys.other = await make('other', ['ingest', 'read', 'write']);
  keys.otherAdmin = await make('other', ['admin']);
  for (const project of ['default', 'other'] as const) {
    await ingest(project, keys[project]!);
    for (const age of ['old', 'recent'] as const) {
      const traceId = TRACES[project][age];
      await eventually(async () => ((await svc.api(`/api/v1/traces/${traceId}`, { key: keys[project]! })).status === 200 ? true : undefined));
      const scored = await jsonCall(svc, '/api/v1/trace-scores', {
        method: 'POST',
        key: keys[project]!,
        body: { scores: [{ traceId, name: 'quality', value: 1 }] },
      });
      expect(scored.status, scored.text).toBe(200);
      await seedRecords(project, age);
    }
  }
  await runTraceFlagsPass(svc.service.storage, { rules: writerSettings({}).traceFlagRules, quietMs: 0 });
  await runTraceRollupPass(svc.service.storage, { quietMs: 0 });
  for (const project of ['default', 'other'] as const) {
    for (const age of ['old', 'recent'] as const) expect(allPresent(await rowsOf(project, age)), `every table holds the ${age} trace of ${project}`).toBe(true);
  }
}, 90_000);
afterAll(async () => {
  await svc?.stop();
});

describe('/trace-retention', () => {
  it('shows the default while the project has no retention of its own', async () => {
    const res = await jsonCall<RetentionView>(svc, '/api/v1/trace-retention', { key: keys.defaultWrite });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ projectId: 'default', days: null, defaultDays: null, override: null });
  });

  it('is changed by admin keys only, of the project itself', async () => {
    const notAdmin = await jsonCall<ErrorBody>(svc, '/api/v1/trace-retention', { method: 'PUT', key: keys.defaultWrite, body: { days: 5 } });
    expect(notAdmin.status).toBe(403);
    const cleared = await jsonCall<ErrorBody>(svc, '/api/v1/trace-retention', { method: 'DELETE', key: keys.defaultWrite });
    expect(cleared.status).toBe(403);
    const otherProject = await jsonCall<ErrorBody>(svc, '/api/v1/trace-retention?projectId=default', { method: 'PUT', key: keys.otherAdmin, body: { days: 5 } });
    expect(otherProject.status).toBe(403);
    expect(otherProject.body.error.details).toEqual([{ field: 'projectId', message: "not the API key's project" }]);
    const noKey = await svc.api('/api/v1/trace-retention', { method: 'PUT', key: null, headers: { 'content-type': 'application/json' }, body: '{"days":5}' });
    expect(noKey.status).toBe(401);
    // Nothing changed.
    expect((await jsonCall<RetentionView>(svc, '/api/v1/trace-retention', { key: keys.defaultWrite })).body.override).toBeNull();
  });

  it('says which field is wrong', async () => {
    for (const [body, field, message] of [
      [{ days: 0 }, 'days', 'must be at least 1'],
      [{ days: 1.5 }, 'days', 'must be a whole number of days'],
      [{ days: '30' }, 'days', 'must be a whole number of days, or null to keep traces for ever'],
      [{ days: 30, extra: true }, 'extra', 'unknown field'],
      [{}, 'days', 'is required'],
    ] as const) {
      const res = await jsonCall<ErrorBody>(svc, '/api/v1/trace-retention', { method: 'PUT', key: keys.otherAdmin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details).toContainEqual({ field, message });
    }
  });

  it('sets, reports and removes a project override', async () => {
    const set = await jsonCall<RetentionView>(svc, '/api/v1/trace-retention', { method: 'PUT', key: keys.otherAdmin, body: { days: 90 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ projectId: 'other', days: 90, defaultDays: null, override: { days: 90 } });
    expect((await jsonCall<RetentionView>(svc, '/api/v1/trace-retention', { key: keys.other })).body.days).toBe(90);
    const removed = await jsonCall<RetentionView>(svc, '/api/v1/trace-retention', { method: 'DELETE', key: keys.otherAdmin });
    expect(removed.body).toEqual({ projectId: 'other', days: null, defaultDays: null, override: null });
    expect((await jsonCall<RetentionView>(svc, '/api/v1/trace-retention', { key: keys.other })).body.override).toBeNull();
  });
});

describe('the retention pass', () => {
  it('expires a trace and everything derived from it together, past the default, and keeps the rest', async () => {
    // "other" keeps everything: its override beats RETENTION_DAYS.
    expect((await jsonCall(svc, '/api/v1/trace-retention', { method: 'PUT', key: keys.otherAdmin, body: { days: null } })).status).toBe(200);
    const result = await runRetentionPass(svc.service.storage, { defaultDays: 30 });
    expect(Object.keys(result.projects)).toEqual(['default']);
    expect(await rowsOf('default', 'old')).toEqual(none);
    expect(allPresent(await rowsOf('default', 'recent'))).toBe(true);
    expect(allPresent(await rowsOf('other', 'old'))).toBe(true);
    // What expired no longer reads through the API either; what is kept still does.
    expect((await svc.api(`/api/v1/traces/${TRACES.default.old}`)).status).toBe(404);
    expect((await svc.api(`/api/v1/traces/${TRACES.default.recent}`)).status).toBe(200);
  });

  it("applies a project's own retention, shorter than the default, without a default at all", async () => {
    expect((await jsonCall(svc, '/api/v1/trace-retention', { method: 'PUT', key: keys.otherAdmin, body: { days: 10 } })).status).toBe(200);
    const result = await runRetentionPass(svc.service.storage, { defaultDays: null });
    expect(result.projects).toEqual({ other: expect.arrayContaining(['spans', 'scores', 'trace_flags']) });
    expect(await rowsOf('other', 'old')).toEqual(none);
    expect(allPresent(await rowsOf('other', 'recent'))).toBe(true);
    expect(allPresent(await rowsOf('default', 'recent'))).toBe(true);
    // A second pass finds nothing left to do.
    expect((await runRetentionPass(svc.service.storage, { defaultDays: 30 })).done).toBe(0);
  });

  it('deletes the flags a flags pass judged again while the spans of their trace were being deleted', async () => {
    // As that pass would have written them: judged now, from spans since deleted.
    await svc.service.storage.client.insert({
      table: 'trace_flags',
      values: [{ project_id: 'default', trace_id: TRACES.default.old, flags: [], details: '{}', spans_ingested_at: Date.now(), computed_at: (Date.now() / 1000).toFixed(3), version: Date.now() }],
      format: 'JSONEachRow',
    });
    expect((await rowsOf('default', 'old')).trace_flags).toBe(1);
    const result = await runRetentionPass(svc.service.storage, { defaultDays: 30 });
    expect(result.projects).toEqual({ default: ['trace_flags'] });
    expect(await rowsOf('default', 'old')).toEqual(none);
    // The flags of traces that still have spans stay.
    expect((await rowsOf('default', 'recent')).trace_flags).toBe(1);
  });
});
