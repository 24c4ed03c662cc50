import { worstState } from '@aos/domain';
import { isMuted, lastEvaluations, measureByName, readGroupStates, type GroupState, type Storage, type StoredMonitor } from '@aos/storage';

/** Shown of a webhook secret: enough to tell two apart, never enough to sign. */
export function secretHint(secret: string): string {
  return `…${secret.slice(-4)}`;
}

/** Views of monitors of one project, with their live states read in two queries. */
export async function monitorViews(storage: Storage, projectId: string, monitors: readonly StoredMonitor[]) {
  const ids = monitors.map((m) => m.id);
  const [states, evaluated] = await Promise.all([readGroupStates(storage, projectId, ids), lastEvaluations(storage, projectId, ids)]);
  return monitors.map((m) => monitorView(m, states.get(m.id) ?? [], evaluated.get(m.id) ?? null));
}

/** A monitor as the API returns it (see monitorView). */
export type MonitorView = ReturnType<typeof monitorView>;

/** A monitor as the API returns it: its definition, its webhook without the secret, its live state. */
function monitorView(monitor: StoredMonitor, groups: readonly GroupState[], lastEvaluatedAt: string | null, now = Date.now()) {
  const { webhookUrl, muted: _muted, ...definition } = monitor.definition;
  const states = groups.map((g) => g.state);
  return {
    id: monitor.id,
    projectId: monitor.projectId,
    ...definition,
    unit: measureByName(definition.measure).unit,
    webhook: webhookUrl ? { url: webhookUrl, secretHint: secretHint(monitor.webhookSecret) } : null,
    muted: isMuted(monitor.definition, now),
    mutedUntil: isMuted(monitor.definition, now) ? monitor.definition.mutedUntil : null,
    // null until the first evaluation; a grouped monitor whose groups all left the window is ok.
    state: lastEvaluatedAt === null ? null : worstState(states),
    lastEvaluatedAt,
    acknowledged: groups.some((g) => g.state === 'alert') && groups.filter((g) => g.state === 'alert').every((g) => g.acknowledged),
    groups,
    createdAt: monitor.createdAt,
    updatedAt: monitor.updatedAt,
    createdBy: monitor.createdBy,
  };
}
