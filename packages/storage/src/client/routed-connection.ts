import type { ChdbConnection } from 'chdb/connection';
import { statementKind, type EngineSessions } from './engine-sessions.ts';

/** The parts of the chDB connection the ClickHouse client calls. */
export type EngineConnection = Pick<ChdbConnection, 'query' | 'exec' | 'command' | 'insert' | 'ping' | 'close'>;

/**
 * The embedded engine as one connection for the ClickHouse client: each statement goes to
 * the session of its kind (by its text; an insert with its rows is a write whatever it
 * says). A request's abort signal takes its statement out of line while it still waits.
 */
export function routedConnection(sessions: EngineSessions): EngineConnection {
  return {
    query: (params) => sessions.run(statementKind(params.query), (s) => s.query(params), params.abort_signal),
    exec: (params) => sessions.run(statementKind(params.query), (s) => s.exec(params), params.abort_signal),
    command: (params) => sessions.run(statementKind(params.query), (s) => s.command(params), params.abort_signal),
    insert: (params) => sessions.run('write', (s) => s.insert(params), params.abort_signal),
    ping: (params) => sessions.run('read', (s) => s.ping(params)),
    close: () => sessions.close(),
  };
}
