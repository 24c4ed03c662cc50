/** Monitors: definitions, measured values, group states and events, evaluation, mute and acknowledge. */
export { EVIDENCE_TRACES, MAX_MONITOR_GROUPS, groupSqlOf, queryMeasureValues, sampleTraceIds } from './values.ts';
export type { GroupValue, MeasureValueRequest } from './values.ts';
export { createMonitor, deleteMonitor, getMonitor, isMuted, listMonitors, listScheduledMonitors, saveMonitor } from './definitions.ts';
export type { MonitorDefinition, MonitorFilter, StoredMonitor } from './definitions.ts';
export {
  MONITOR_EVENT_KINDS,
  lastEvaluations,
  listMonitorEvents,
  monitorEventId,
  readGroupStates,
  writeAcknowledgements,
  writeGroupStates,
  writeMonitorEvents,
} from './states.ts';
export type { GroupState, GroupStateWrite, MonitorEvent, MonitorEventKind } from './states.ts';
export { evaluateMonitor, measureMonitor, monitorWindowFilter } from './evaluation.ts';
export type { MeasuredGroup, MonitorEvaluation, MonitorMeasurement } from './evaluation.ts';
export { acknowledgeMonitor, muteMonitor, unmuteMonitor } from './actions.ts';
