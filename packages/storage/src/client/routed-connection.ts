import type { ChdbConnection } from 'chdb/connection';
import { statementKind, type EngineSessions, type StatementPriority } from './engine-sessions.ts';

/** The parts of the chDB connection the ClickHouse client calls. */
export type EngineConnection = Pick<ChdbConnection, 'query' | 'exec' | 'command' | 'insert' | 'ping' | 'close'>;

/**
 * The embedded engine as one connection for the ClickHouse client: each statement goes to
 * the session of its kind (by its text; an insert with its rows is a write whatever it
 * says), with `priority` in the session's line (engine-sessions.ts: requests' reads go
 * before background ones). A request's abort signal takes its statement out of line while
 * it still waits. With `ownsSessions` false, closing the connection leaves the sessions
 * open: another connection over them closes them.
 */
export function routedConnection(sessions: EngineSessions, priority: StatementPriority, ownsSessions: boolean): EngineConnection {
  const line = (params: { abort_signal?: AbortSignal }) => ({ signal: params.abort_signal, priority });
  return {
    query: (params) => sessions.run(statementKind(params.query), (s) => s.query(params), line(params)),
    exec: (params) => sessions.run(statementKind(params.query), (s) => s.exec(params), line(params)),
    command: (params) => sessions.run(statementKind(params.query), (s) => s.command(params), line(params)),
    insert: (params) => sessions.run('write', (s) => s.insert(params), line(params)),
    ping: (params) => sessions.run('read', (s) => s.ping(params), { priority }),
    close: () => (ownsSessions ? sessions.close() : Promise.resolve()),
  };
}
