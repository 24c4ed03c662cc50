import { judgeValue, thresholdFor, type MonitorState } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { raiseFinding } from '../findings/records.ts';
import { groupByOf, measureByName } from '../traces/measures.ts';
import { queryMeasureValues, sampleTraceIds } from './values.ts';
import { isMuted, type MonitorDefinition, type StoredMonitor } from './definitions.ts';
import { monitorEventId, readGroupStates, writeGroupStates, writeMonitorEvents, type GroupStateWrite, type MonitorEvent } from './states.ts';
import type { TraceFilter } from '../traces/filter.ts';

/**
 * One evaluation of a monitor: the measure over the window ending now, judged per group,
 * the states written, an event per change of state, and a finding for each group that
 * enters alert while the monitor is not muted. The API's preview runs the first half
 * (`measureMonitor`), so a draft shows what its first evaluation would.
 */

export interface MeasuredGroup {
  group: string;
  value: number | null;
  traces: number;
  state: MonitorState;
}

export interface MonitorMeasurement {
  windowStart: string;
  windowEnd: string;
  groups: MeasuredGroup[];
}

/** The trace filter a monitor reads at `now`: its filter over the window ending then. */
export function monitorWindowFilter(projectId: string, def: MonitorDefinition, now: number): TraceFilter {
  return { ...def.filter, projectId, startTimeMs: now - def.windowSeconds * 1000, endTimeMs: now };
}

/**
 * The value and state of each group at `now`. `previous` (group → state) feeds the
 * `keep` no-data rule, and names groups seen before that have no trace now: they are
 * judged on the measure's empty value (0 for counts, no data for averages).
 */
export async function measureMonitor(
  storage: Storage,
  projectId: string,
  def: MonitorDefinition,
  now: number,
  previous: ReadonlyMap<string, MonitorState> = new Map(),
): Promise<MonitorMeasurement> {
  const filter = monitorWindowFilter(projectId, def, now);
  const values = await queryMeasureValues(storage, filter, {
    measure: def.measure,
    ...(def.scoreName ? { scoreName: def.scoreName } : {}),
    ...(def.groupBy ? { groupBy: groupByOf(def.groupBy) } : {}),
    extreme: def.condition.operator === 'above' ? 'highest' : 'lowest',
  });
  const empty = measureByName(def.measure).empty;
  const seen = new Set(values.map((v) => v.group));
  const absent = [...previous.keys()].filter((g) => !seen.has(g)).map((group) => ({ group, value: empty, traces: 0 }));
  return {
    windowStart: new Date(filter.startTimeMs).toISOString(),
    windowEnd: new Date(filter.endTimeMs).toISOString(),
    groups: [...values, ...absent].map((v) => ({ ...v, state: judgeValue(def.condition, v.value, previous.get(v.group) ?? null) })),
  };
}

export interface MonitorEvaluation {
  measurement: MonitorMeasurement;
  /** State-change events written by this evaluation (muted ones included, marked). */
  changes: MonitorEvent[];
  /** Findings raised or updated (groups entering alert while not muted). */
  findings: string[];
}

/** Evaluates a monitor at `now` and records the outcome (see the top of this file). */
export async function evaluateMonitor(storage: Storage, monitor: StoredMonitor, now: number): Promise<MonitorEvaluation> {
  const def = monitor.definition;
  const before = (await readGroupStates(storage, monitor.projectId, [monitor.id])).get(monitor.id) ?? [];
  const previousByGroup = new Map(before.map((s) => [s.group, s]));
  const measurement = await measureMonitor(
    storage,
    monitor.projectId,
    def,
    now,
    new Map(before.map((s) => [s.group, s.state])),
  );
  const muted = isMuted(def, now);
  const at = new Date(now).toISOString();
  const states: GroupStateWrite[] = [];
  const changes: MonitorEvent[] = [];
  for (const g of measurement.groups) {
    const prev = previousByGroup.get(g.group);
    const changed = !prev || prev.state !== g.state;
    // A group gone from the window and judged fine is retired, so groups (sessions,
    // users) that come and go do not pile up; it starts afresh if it comes back.
    const retired = def.groupBy !== null && g.traces === 0 && (g.state === 'ok' || g.state === 'no_data');
    states.push({ group: g.group, state: g.state, value: g.value, since: changed ? at : prev.since, evaluatedAt: at, retired });
    // Every change is an event, except a new group of a grouped monitor starting out ok:
    // a new user or session doing fine is no news.
    if (!changed || (!prev && def.groupBy !== null && g.state === 'ok')) continue;
    const fromState = prev?.state ?? null;
    changes.push({
      id: monitorEventId([monitor.id, g.group, now, fromState, g.state]),
      monitorId: monitor.id,
      at,
      kind: 'state_change',
      group: g.group,
      fromState,
      toState: g.state,
      value: g.value,
      threshold: thresholdFor(def.condition, g.state),
      windowStart: measurement.windowStart,
      windowEnd: measurement.windowEnd,
      muted,
      actor: '',
      detail: `${def.measure} ${def.condition.operator} ${g.state === 'warning' ? def.condition.warningThreshold : def.condition.threshold}`,
    });
  }
  // Events before states: should the process die in between, the next evaluation sees the
  // old state again and writes the same change, whose event id is derived from its time.
  await writeMonitorEvents(storage, monitor.projectId, changes);
  await writeGroupStates(storage, monitor.projectId, monitor.id, states);
  const findings: string[] = [];
  if (!muted) {
    for (const change of changes.filter((c) => c.toState === 'alert')) {
      findings.push(await raiseMonitorFinding(storage, monitor, change, now));
    }
  }
  return { measurement, changes, findings };
}

async function raiseMonitorFinding(storage: Storage, monitor: StoredMonitor, change: MonitorEvent, now: number): Promise<string> {
  const def = monitor.definition;
  const evidence = await sampleTraceIds(storage, monitorWindowFilter(monitor.projectId, def, now), {
    measure: def.measure,
    ...(def.scoreName ? { scoreName: def.scoreName } : {}),
    ...(def.groupBy ? { groupBy: groupByOf(def.groupBy) } : {}),
    group: change.group,
  });
  const groupText = def.groupBy ? ` for ${def.groupBy} ${JSON.stringify(change.group)}` : '';
  const { finding } = await raiseFinding(storage, {
    projectId: monitor.projectId,
    dedupeKey: `monitor:${monitor.id}:${change.group}`,
    title: `${def.name}: ${def.measure} ${def.condition.operator} ${def.condition.threshold}${groupText}`,
    description:
      `${def.measure} was ${change.value} over ${change.windowStart} – ${change.windowEnd}${groupText}, ` +
      `${def.condition.operator} the threshold ${def.condition.threshold}.`,
    severity: def.severity,
    investigator: { kind: 'monitor', id: monitor.id },
    asset: { type: 'monitor', id: monitor.id },
    evidence,
    seenAtMs: now,
  });
  return finding.id;
}
