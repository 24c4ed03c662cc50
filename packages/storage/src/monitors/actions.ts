import type { Storage } from '../client/client.ts';
import { saveMonitor, type StoredMonitor } from './definitions.ts';
import { monitorEventId, readGroupStates, writeAcknowledgements, writeMonitorEvents, type MonitorEvent } from './states.ts';

/**
 * What people do to a monitor: mute (optionally until a time), unmute, acknowledge the
 * current alert. Each is recorded as an event of the monitor, naming the API key.
 */

function actionEvent(monitor: StoredMonitor, kind: MonitorEvent['kind'], actor: string, now: number, detail: string, group = ''): MonitorEvent {
  return {
    id: monitorEventId([monitor.id, kind, group, now, actor]),
    monitorId: monitor.id,
    at: new Date(now).toISOString(),
    kind,
    group,
    fromState: null,
    toState: null,
    value: null,
    threshold: null,
    windowStart: null,
    windowEnd: null,
    muted: kind === 'muted',
    actor,
    detail,
  };
}

export async function muteMonitor(storage: Storage, monitor: StoredMonitor, until: number | null, actor: string, now = Date.now()): Promise<StoredMonitor> {
  const mutedUntil = until === null ? null : new Date(until).toISOString();
  const saved = await saveMonitor(storage, { ...monitor, definition: { ...monitor.definition, muted: true, mutedUntil } });
  await writeMonitorEvents(storage, monitor.projectId, [actionEvent(monitor, 'muted', actor, now, mutedUntil ? `until ${mutedUntil}` : 'until unmuted')]);
  return saved;
}

export async function unmuteMonitor(storage: Storage, monitor: StoredMonitor, actor: string, now = Date.now()): Promise<StoredMonitor> {
  const saved = await saveMonitor(storage, { ...monitor, definition: { ...monitor.definition, muted: false, mutedUntil: null } });
  await writeMonitorEvents(storage, monitor.projectId, [actionEvent(monitor, 'unmuted', actor, now, '')]);
  return saved;
}

/**
 * Acknowledges the groups now in alert and not acknowledged yet. Returns the groups in
 * alert and those this call acknowledged. The acknowledgement lasts until the group
 * leaves alert.
 */
export async function acknowledgeMonitor(
  storage: Storage,
  monitor: StoredMonitor,
  actor: string,
  now = Date.now(),
): Promise<{ inAlert: string[]; acknowledged: string[] }> {
  const states = (await readGroupStates(storage, monitor.projectId, [monitor.id])).get(monitor.id) ?? [];
  const inAlert = states.filter((s) => s.state === 'alert').map((s) => s.group);
  const alerting = states.filter((s) => s.state === 'alert' && !s.acknowledged);
  if (alerting.length === 0) return { inAlert, acknowledged: [] };
  await writeAcknowledgements(storage, monitor.projectId, monitor.id, alerting.map((s) => ({ group: s.group, alertSince: s.since })), actor, now);
  await writeMonitorEvents(
    storage,
    monitor.projectId,
    alerting.map((s) => actionEvent(monitor, 'acknowledged', actor, now, `alert since ${s.since}`, s.group)),
  );
  return { inAlert, acknowledged: alerting.map((s) => s.group) };
}
