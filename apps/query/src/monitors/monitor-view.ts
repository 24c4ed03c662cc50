import { worstState } from '@aos/domain';
import { isMuted, measureByName, type GroupState, type StoredMonitor } from '@aos/storage';

/** Shown of a webhook secret: enough to tell two apart, never enough to sign. */
export function secretHint(secret: string): string {
  return `…${secret.slice(-4)}`;
}

/** A monitor as the API returns it: its definition, its webhook without the secret, its live state. */
export function monitorView(monitor: StoredMonitor, groups: readonly GroupState[], now = Date.now()) {
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
    /** null until the first evaluation. */
    state: groups.length === 0 ? null : worstState(states),
    acknowledged: groups.some((g) => g.state === 'alert') && groups.filter((g) => g.state === 'alert').every((g) => g.acknowledged),
    groups,
    createdAt: monitor.createdAt,
    updatedAt: monitor.updatedAt,
    createdBy: monitor.createdBy,
  };
}
