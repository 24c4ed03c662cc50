/** Rows of spans starting in an hour that the traces `traceCondition` picks of project {projectId} have spans in. */
const inHoursOf = (traceCondition: string) =>
  `toStartOfHour(start_time) IN (SELECT hour FROM trace_hours WHERE project_id = {projectId:String} AND ${traceCondition})`;

/**
 * A condition on spans rows: they start in an hour that trace {traceId} of project
 * {projectId} has spans in. The hours come from trace_hours (migration 0020), a point read
 * on its key; with them the spans key reaches past the project to those hours' granules,
 * where the trace id alone could only have every hour's bloom filter checked.
 */
export const IN_TRACE_HOURS_SQL = inHoursOf('trace_id = {traceId:String}');

/** IN_TRACE_HOURS_SQL for the traces `{traceIds:Array(String)}`: rows in an hour any of them has spans in. */
export const IN_TRACES_HOURS_SQL = inHoursOf('trace_id IN {traceIds:Array(String)}');
