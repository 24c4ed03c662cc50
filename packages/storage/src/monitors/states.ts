import { createHash } from 'node:crypto';
import type { MonitorState } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

/**
 * The current state of each group of a monitor, its acknowledgements, and its events.
 * The writer rewrites a group's state at each evaluation and appends an event when it
 * changes; the API records acknowledgements (apart, so an evaluation never overwrites
 * one) and appends mute, unmute and acknowledge events.
 */

export interface GroupState {
  group: string;
  state: MonitorState;
  value: number | null;
  /** When the group entered this state (ISO 8601). */
  since: string;
  /** The current alert was acknowledged (an alert is named by its since: a new alert needs a new one). */
  acknowledged: boolean;
  evaluatedAt: string;
}

/** A state as the evaluation writes it; `retired` keeps a group gone from the data out of reads. */
export type GroupStateWrite = Omit<GroupState, 'acknowledged'> & { retired: boolean };

/** The live (not retired) group states of these monitors, with their acknowledgements. */
export async function readGroupStates(storage: Storage, projectId: string, monitorIds: readonly string[]): Promise<Map<string, GroupState[]>> {
  const byMonitor = new Map<string, GroupState[]>();
  if (monitorIds.length === 0) return byMonitor;
  const result = await storage.client.query({
    query: `
      SELECT monitor_id, group_key, state, value,
        toString(toUnixTimestamp64Milli(since)) AS since_ms,
        toString(toUnixTimestamp64Milli(evaluated_at)) AS evaluated_ms,
        state = 'alert' AND (monitor_id, group_key, since) IN (
          SELECT monitor_id, group_key, alert_since FROM monitor_acks
          WHERE project_id = {projectId:String} AND monitor_id IN {monitorIds:Array(String)}
        ) AS acknowledged
      FROM monitor_states FINAL
      WHERE project_id = {projectId:String} AND monitor_id IN {monitorIds:Array(String)} AND retired = 0
      ORDER BY monitor_id, group_key`,
    query_params: { projectId, monitorIds },
    format: 'JSONEachRow',
    ...named(storage, 'monitors.states.read'),
  });
  type Row = { monitor_id: string; group_key: string; state: MonitorState; value: number | null; acknowledged: number; since_ms: string; evaluated_ms: string };
  for (const r of await result.json<Row>()) {
    const list = byMonitor.get(r.monitor_id) ?? [];
    list.push({
      group: r.group_key,
      state: r.state,
      value: r.value === null ? null : Number(r.value),
      since: new Date(Number(r.since_ms)).toISOString(),
      acknowledged: Number(r.acknowledged) === 1,
      evaluatedAt: new Date(Number(r.evaluated_ms)).toISOString(),
    });
    byMonitor.set(r.monitor_id, list);
  }
  return byMonitor;
}

/** When each of these monitors was last evaluated (retired groups count); absent when never. */
export async function lastEvaluations(storage: Storage, projectId: string, monitorIds: readonly string[]): Promise<Map<string, string>> {
  if (monitorIds.length === 0) return new Map();
  const result = await storage.client.query({
    query: `
      SELECT monitor_id, toString(toUnixTimestamp64Milli(max(evaluated_at))) AS last_ms
      FROM monitor_states
      WHERE project_id = {projectId:String} AND monitor_id IN {monitorIds:Array(String)}
      GROUP BY monitor_id`,
    query_params: { projectId, monitorIds },
    format: 'JSONEachRow',
    ...named(storage, 'monitors.states.last-evaluated'),
  });
  return new Map((await result.json<{ monitor_id: string; last_ms: string }>()).map((r) => [r.monitor_id, new Date(Number(r.last_ms)).toISOString()]));
}

export async function writeGroupStates(storage: Storage, projectId: string, monitorId: string, states: readonly GroupStateWrite[]): Promise<void> {
  if (states.length === 0) return;
  await storage.client.insert({
    table: 'monitor_states',
    values: states.map((s) => ({
      project_id: projectId,
      monitor_id: monitorId,
      group_key: s.group,
      state: s.state,
      value: s.value,
      since: msToDateTimeParam(Date.parse(s.since)),
      evaluated_at: msToDateTimeParam(Date.parse(s.evaluatedAt)),
      retired: s.retired ? 1 : 0,
      version: nextRowVersion(),
    })),
    format: 'JSONEachRow',
    ...named(storage, 'monitors.states.write'),
  });
}

/** Records acknowledgements of the alerts of these groups (each named by the time it began). */
export async function writeAcknowledgements(
  storage: Storage,
  projectId: string,
  monitorId: string,
  acks: ReadonlyArray<{ group: string; alertSince: string }>,
  actor: string,
  now: number,
): Promise<void> {
  if (acks.length === 0) return;
  await storage.client.insert({
    table: 'monitor_acks',
    values: acks.map((a) => ({
      project_id: projectId,
      monitor_id: monitorId,
      group_key: a.group,
      alert_since: msToDateTimeParam(Date.parse(a.alertSince)),
      at: msToDateTimeParam(now),
      actor,
    })),
    format: 'JSONEachRow',
    ...named(storage, 'monitors.acks.write'),
  });
}

export const MONITOR_EVENT_KINDS = ['state_change', 'muted', 'unmuted', 'acknowledged'] as const;
export type MonitorEventKind = (typeof MONITOR_EVENT_KINDS)[number];

export interface MonitorEvent {
  id: string;
  monitorId: string;
  at: string;
  kind: MonitorEventKind;
  /** The group it concerns ('' for an ungrouped monitor or a monitor-wide event). */
  group: string;
  fromState: MonitorState | null;
  toState: MonitorState | null;
  value: number | null;
  threshold: number | null;
  windowStart: string | null;
  windowEnd: string | null;
  /** Recorded while the monitor was muted: no finding, no webhook. */
  muted: boolean;
  /** The API key behind a mute/unmute/acknowledge; '' for evaluations. */
  actor: string;
  /** Free text: the mute's end, the measure and unit, … */
  detail: string;
}

/** An event id derived from what it records: a replayed evaluation writes the same id. */
export function monitorEventId(parts: readonly (string | number | null)[]): string {
  return `mev_${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24)}`;
}

export async function writeMonitorEvents(storage: Storage, projectId: string, events: readonly MonitorEvent[]): Promise<void> {
  if (events.length === 0) return;
  const time = (iso: string | null) => (iso === null ? null : msToDateTimeParam(Date.parse(iso)));
  await storage.client.insert({
    table: 'monitor_events',
    values: events.map((e) => ({
      project_id: projectId,
      monitor_id: e.monitorId,
      at: time(e.at),
      id: e.id,
      kind: e.kind,
      group_key: e.group,
      from_state: e.fromState ?? '',
      to_state: e.toState ?? '',
      value: e.value,
      threshold: e.threshold,
      window_start: time(e.windowStart),
      window_end: time(e.windowEnd),
      muted: e.muted ? 1 : 0,
      actor: e.actor,
      detail: e.detail,
    })),
    format: 'JSONEachRow',
    ...named(storage, 'monitors.events.write'),
  });
}

/** The statement of a page of listMonitorEvents: one row more than the page, to tell if more follow. */
export function monitorEventListSql(projectId: string, monitorId: string, page: { limit: number; before?: { atMs: number; id: string } }): Statement {
  const params: Record<string, unknown> = { projectId, monitorId, limit: page.limit + 1 };
  let condition = 'project_id = {projectId:String} AND monitor_id = {monitorId:String}';
  if (page.before) {
    condition += ' AND (at, id) < ({beforeAt:DateTime64(3)}, {beforeId:String})';
    params.beforeAt = msToDateTimeParam(page.before.atMs);
    params.beforeId = page.before.id;
  }
  const query = `
      SELECT id, monitor_id, kind, group_key, from_state, to_state, value, threshold, muted, actor, detail,
        toString(toUnixTimestamp64Milli(at)) AS at_ms,
        if(window_start IS NULL, NULL, toString(toUnixTimestamp64Milli(window_start))) AS window_start_ms,
        if(window_end IS NULL, NULL, toString(toUnixTimestamp64Milli(window_end))) AS window_end_ms
      FROM monitor_events FINAL
      WHERE ${condition}
      ORDER BY at DESC, id DESC
      LIMIT {limit:UInt32}`;
  return { query, params };
}

/** A monitor's events, newest first, keyset-paginated on (time, id). */
export async function listMonitorEvents(
  storage: Storage,
  projectId: string,
  monitorId: string,
  page: { limit: number; before?: { atMs: number; id: string } },
): Promise<{ events: MonitorEvent[]; next: { atMs: number; id: string } | null }> {
  const statement = monitorEventListSql(projectId, monitorId, page);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'monitors.events.list'),
  });
  type Row = {
    id: string; monitor_id: string; kind: MonitorEventKind; group_key: string; from_state: string; to_state: string;
    value: number | null; threshold: number | null; muted: number; actor: string; detail: string;
    at_ms: string; window_start_ms: string | null; window_end_ms: string | null;
  };
  const iso = (ms: string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
  const rows = await result.json<Row>();
  const events = rows.slice(0, page.limit).map(
    (r): MonitorEvent => ({
      id: r.id,
      monitorId: r.monitor_id,
      at: iso(r.at_ms)!,
      kind: r.kind,
      group: r.group_key,
      fromState: (r.from_state || null) as MonitorState | null,
      toState: (r.to_state || null) as MonitorState | null,
      value: r.value === null ? null : Number(r.value),
      threshold: r.threshold === null ? null : Number(r.threshold),
      windowStart: iso(r.window_start_ms),
      windowEnd: iso(r.window_end_ms),
      muted: r.muted === 1,
      actor: r.actor,
      detail: r.detail,
    }),
  );
  const last = events.at(-1);
  return { events, next: rows.length > page.limit && last ? { atMs: Date.parse(last.at), id: last.id } : null };
}
