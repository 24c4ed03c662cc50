import { roundCost } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { listScores, type ScoreRecord } from '../scores/records.ts';
import { msToDateTimeParam, nanosToDateTimeValue, nanosToIso } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { TRACE_COLUMNS_SQL, traceColumnsFor, type TraceAggregateRow } from '../traces/aggregate.ts';
import { TRACE_SPAN_MARGIN_MS, traceFilterSql, type TraceFilter } from '../traces/filter.ts';
import { traceRecordFromRow, type TraceRecord } from '../traces/record.ts';

/**
 * Sessions are the traces that share a session id, aggregated at query time from the
 * trace columns of traces/aggregate.ts: a trace belongs to the session its spans name.
 */

/** A session's figures, as the API returns them. */
export interface SessionRecord {
  sessionId: string;
  firstActivity: string;
  lastActivity: string;
  traceCount: number;
  /** From the start of the first trace to the end of the last one. */
  durationMs: number;
  cost: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Traces whose status is error. */
  errorCount: number;
  /** Distinct user ids, sorted, at most `MAX_SESSION_USERS`. */
  users: string[];
}

export interface SessionDetail extends SessionRecord {
  /** The session's traces in start order, at most `MAX_SESSION_TRACES`. */
  traces: TraceRecord[];
  tracesTruncated: boolean;
  /** Scores on the session itself (not on its traces), oldest first, at most `MAX_SESSION_SCORES`. */
  scores: ScoreRecord[];
  scoresTruncated: boolean;
}

/** Where the previous page ended: the sort key of its last session. */
export interface SessionCursor {
  lastActivityNs: string;
  sessionId: string;
}

export interface SessionPage {
  sessions: SessionRecord[];
  /** Set when another page may follow. */
  next: SessionCursor | null;
}

export const MAX_SESSION_USERS = 100;
export const MAX_SESSION_TRACES = 1000;
export const MAX_SESSION_SCORES = 1000;

/** Per-trace user ids, selected beside the trace columns: a trace may name several users. */
const TRACE_USERS_SQL = "groupUniqArrayIf(user_id, user_id != '') AS trace_user_ids";

/**
 * Session figures over a set of trace rows, the session id taken from `sessionIdSql` (the columns of TRACE_COLUMNS_SQL plus
 * TRACE_USERS_SQL). Aliases avoid the trace column names, which they would capture.
 */
const sessionColumnsSql = (sessionIdSql: string) => `
    ${sessionIdSql} AS sess_id,
    min(trace_start) AS sess_start,
    max(trace_end) AS sess_end,
    count() AS sess_trace_count,
    dateDiff('microsecond', sess_start, sess_end) / 1000 AS sess_duration_ms,
    sum(trace_cost) AS sess_cost,
    sum(trace_input_tokens) AS sess_input_tokens,
    sum(trace_output_tokens) AS sess_output_tokens,
    sum(trace_total_tokens) AS sess_total_tokens,
    countIf(trace_status = 'error') AS sess_error_count,
    arraySlice(arraySort(groupUniqArrayArray(trace_user_ids)), 1, {maxUsers:UInt32}) AS sess_users,
    toString(toUnixTimestamp64Nano(sess_start)) AS sess_start_ns,
    toString(toUnixTimestamp64Nano(sess_end)) AS sess_end_ns`;

/** A session row as the SQL above returns it (64-bit integers arrive as strings). */
interface SessionRow {
  sess_id: string;
  sess_start_ns: string;
  sess_end_ns: string;
  sess_trace_count: string;
  sess_duration_ms: number;
  sess_cost: number;
  sess_input_tokens: string;
  sess_output_tokens: string;
  sess_total_tokens: string;
  sess_error_count: string;
  sess_users: string[];
}

/** The statement of a page of listSessions: one row more than the page, to tell if more follow. */
export function sessionListSql(filter: TraceFilter, page: { limit: number; after?: SessionCursor }): Statement {
  const sql = traceFilterSql(filter);
  const params: Record<string, unknown> = { ...sql.params, maxUsers: MAX_SESSION_USERS, limit: page.limit + 1 };
  let having = '';
  if (page.after) {
    // Tuple comparison keeps the order total when two sessions end in the same nanosecond.
    having = 'HAVING (sess_end, sess_id) < ({afterEnd:DateTime64(9)}, {afterSession:String})';
    params.afterEnd = nanosToDateTimeValue(page.after.lastActivityNs);
    params.afterSession = page.after.sessionId;
  }
  const query = `
      SELECT ${sessionColumnsSql('trace_session_id')}
      FROM (
        SELECT ${traceColumnsFor(sql.traceConditions)}, ${TRACE_USERS_SQL}
        FROM spans FINAL
        PREWHERE ${sql.spanConditions.join(' AND ')}
        GROUP BY trace_id
      )
      WHERE ${[...sql.traceConditions, "trace_session_id != ''"].join(' AND ')}
      GROUP BY trace_session_id
      ${having}
      ORDER BY sess_end DESC, sess_id DESC
      LIMIT {limit:UInt32}`;
  return { query, params };
}

/**
 * Sessions whose traces match the filter, most recent last activity first, keyset-paginated
 * on (last activity, session id). Figures cover the matching traces only.
 */
export async function listSessions(
  storage: Storage,
  filter: TraceFilter,
  page: { limit: number; after?: SessionCursor },
): Promise<SessionPage> {
  const statement = sessionListSql(filter, page);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'sessions.list'),
  });
  const rows = await result.json<SessionRow>();
  const last = rows[page.limit - 1];
  return {
    sessions: rows.slice(0, page.limit).map(sessionRecordFromRow),
    next: rows.length > page.limit && last ? { lastActivityNs: last.sess_end_ns, sessionId: last.sess_id } : null,
  };
}

/**
 * The two statements of getSession, given the first and last start of the session's own
 * spans: the session's figures over all its traces, and its traces in start order.
 */
export function sessionDetailSql(
  projectId: string,
  sessionId: string,
  bounds: { firstStartMs: number; lastStartMs: number },
): { figures: Statement; traces: Statement } {
  const params = {
    projectId,
    sessionId,
    maxUsers: MAX_SESSION_USERS,
    traceLimit: MAX_SESSION_TRACES + 1,
    scanStart: msToDateTimeParam(bounds.firstStartMs - TRACE_SPAN_MARGIN_MS),
    scanEnd: msToDateTimeParam(bounds.lastStartMs + TRACE_SPAN_MARGIN_MS + 1),
  };
  // The time bound lets the primary key keep only the session's hours: without it the
  // trace id set was checked against every granule of the project (12.7 s for a session
  // of 50,000 traces among 100M spans; docs/benchmarks.md, "Scale curve").
  const sessionTraces = `
        SELECT ${TRACE_COLUMNS_SQL}, ${TRACE_USERS_SQL}
        FROM spans FINAL
        PREWHERE project_id = {projectId:String}
          AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
          AND trace_id IN (
            SELECT trace_id FROM spans
            WHERE project_id = {projectId:String} AND session_id = {sessionId:String}
              AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)})
        GROUP BY trace_id`;
  return {
    // Every trace found counts, even one whose other spans name a different session.
    figures: {
      query: `
          SELECT ${sessionColumnsSql('{sessionId:String}')}
          FROM (${sessionTraces})
          HAVING count() > 0`,
      params,
    },
    traces: { query: `SELECT * FROM (${sessionTraces}) ORDER BY trace_start, trace_id LIMIT {traceLimit:UInt32}`, params },
  };
}

/**
 * One session over all its traces (any time), with its traces in start order and its
 * scores, or null when the project has no such session. A trace is in the session when
 * one of its spans names it; its spans are read within TRACE_SPAN_MARGIN_MS of the
 * session's own spans, the margin every trace figure of the lists assumes too.
 */
export async function getSession(storage: Storage, projectId: string, sessionId: string): Promise<SessionDetail | null> {
  const bounds = await sessionSpanBounds(storage, projectId, sessionId);
  if (!bounds) return null;
  const { figures: figuresSql, traces: tracesSql } = sessionDetailSql(projectId, sessionId, bounds);
  const [figures, traceRows, scores] = await Promise.all([
    storage.client
      .query({
        query: figuresSql.query,
        query_params: figuresSql.params,
        format: 'JSONEachRow',
        ...named(storage, 'sessions.detail.figures'),
      })
      .then((r) => r.json<SessionRow>()),
    storage.client
      .query({
        query: tracesSql.query,
        query_params: tracesSql.params,
        format: 'JSONEachRow',
        ...named(storage, 'sessions.detail.traces'),
      })
      .then((r) => r.json<TraceAggregateRow>()),
    listScores(storage, projectId, { sessionId }, { limit: MAX_SESSION_SCORES }),
  ]);
  const [row] = figures;
  if (!row) return null;
  return {
    ...sessionRecordFromRow(row),
    traces: traceRows.slice(0, MAX_SESSION_TRACES).map(traceRecordFromRow),
    tracesTruncated: traceRows.length > MAX_SESSION_TRACES,
    scores: scores.scores,
    scoresTruncated: scores.next !== null,
  };
}

/**
 * The first and last start of the spans that name the session (found through the
 * session_id bloom filter, one value checked per granule), in ms; null when none does.
 */
async function sessionSpanBounds(storage: Storage, projectId: string, sessionId: string): Promise<{ firstStartMs: number; lastStartMs: number } | null> {
  const result = await storage.client.query({
    query: `
      SELECT count() AS n, toUnixTimestamp64Milli(min(start_time)) AS first_ms, toUnixTimestamp64Milli(max(start_time)) AS last_ms
      FROM spans
      WHERE project_id = {projectId:String} AND session_id = {sessionId:String}`,
    query_params: { projectId, sessionId },
    format: 'JSONEachRow',
    ...named(storage, 'sessions.detail.bounds'),
  });
  const [row] = await result.json<{ n: string; first_ms: string; last_ms: string }>();
  if (!row || row.n === '0') return null;
  return { firstStartMs: Number(row.first_ms), lastStartMs: Number(row.last_ms) };
}

function sessionRecordFromRow(row: SessionRow): SessionRecord {
  return {
    sessionId: row.sess_id,
    firstActivity: nanosToIso(row.sess_start_ns),
    lastActivity: nanosToIso(row.sess_end_ns),
    traceCount: Number(row.sess_trace_count),
    durationMs: row.sess_duration_ms,
    cost: roundCost(row.sess_cost),
    inputTokens: Number(row.sess_input_tokens),
    outputTokens: Number(row.sess_output_tokens),
    totalTokens: Number(row.sess_total_tokens),
    errorCount: Number(row.sess_error_count),
    users: row.sess_users,
  };
}
