import type { ChdbConnection } from 'chdb/connection';
import { statementKind, type StatementGate } from './statement-gate.ts';

/** The parts of the chDB connection the ClickHouse client calls. */
export type EngineConnection = Pick<ChdbConnection, 'query' | 'exec' | 'command' | 'insert' | 'ping' | 'close'>;

/**
 * The embedded connection with every statement the client sends passed through `gate`:
 * reads (by their text) before writes. An insert with its rows is a write whatever it says.
 * A request's abort signal takes its statement out of line while it still waits.
 */
export function gatedConnection(connection: ChdbConnection, gate: StatementGate): EngineConnection {
  return {
    query: (params) => gate.run(statementKind(params.query), () => connection.query(params), params.abort_signal),
    exec: (params) => gate.run(statementKind(params.query), () => connection.exec(params), params.abort_signal),
    command: (params) => gate.run(statementKind(params.query), () => connection.command(params), params.abort_signal),
    insert: (params) => gate.run('write', () => connection.insert(params), params.abort_signal),
    ping: (params) => gate.run('read', () => connection.ping(params)),
    close: () => connection.close(),
  };
}
