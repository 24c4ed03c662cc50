import { createChdbConnection, type ChdbConnection } from 'chdb/connection';

/**
 * Reads and writes of the embedded engine on sessions of their own.
 *
 * How chDB runs concurrent calls (chdb 3.4, measured): every call goes to a libuv worker
 * thread, and a session runs one statement at a time; the others block on its lock in
 * whatever order their threads reach it (two `SELECT sleep(1)` on one session take 2 s,
 * on two sessions of the same data directory 1 s, and each session sees the other's
 * writes at once). With one session, a read that came while the writer's inserts were
 * queued waited behind them, each up to a second or more (issue 33: list page p99 7.9 s
 * with ingest saturated), and putting reads first in line still left every read waiting
 * for the insert that was running. So reads go to one session and writes to another: a
 * read never waits for an insert, only for the CPU they share.
 *
 * Each session keeps a line of its own (one statement at a time, first come first
 * served), so statements run in the order they were asked for rather than the order their
 * threads happen to reach the lock, and the write line's clock tells how long writes
 * actually ran, without the time they waited for their turn.
 */
export type StatementKind = 'read' | 'write';

/** What the sessions tell about themselves, for the writer's block sizes. */
export interface EngineClock {
  /**
   * Milliseconds the engine has spent running write statements since the sessions were
   * opened: a clock that runs only while a write runs, so an insert's cost can be read
   * without the time it waited for its turn.
   */
  writeRunMs(): number;
  /** The same clock for the read session: how long reads held it (a bench tells waiting reads from slow ones by it). */
  readRunMs(): number;
}

export interface EngineSessions extends EngineClock {
  /** Runs `statement` on the session of its kind when its turn comes; a `signal` aborted while it waits takes it out of line. */
  run<T>(kind: StatementKind, statement: (session: ChdbConnection) => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Runs `sql` on both sessions: what a session remembers (USE, SET) must hold on each. */
  onBoth(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the read and the write session on the engine's data directory `dir`. */
export function openEngineSessions(dir: string): EngineSessions {
  const write = createChdbConnection({ path: dir });
  let read: ChdbConnection;
  try {
    read = createChdbConnection({ path: dir });
  } catch (err) {
    void write.close();
    throw err;
  }
  const lines = { read: createStatementLine(), write: createStatementLine() };
  const sessions = { read, write };
  return {
    run: (kind, statement, signal) => lines[kind].run(() => statement(sessions[kind]), signal),
    async onBoth(sql) {
      await Promise.all([write, read].map((session) => session.chdb.queryAsync(sql)));
    },
    writeRunMs: () => lines.write.runMs(),
    readRunMs: () => lines.read.runMs(),
    async close() {
      await Promise.all([read.close(), write.close()]);
    },
  };
}

/** One statement at a time, in the order asked for, with a clock of the time statements ran. */
export interface StatementLine {
  run<T>(statement: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  runMs(): number;
}

export function createStatementLine(): StatementLine {
  const now = () => performance.now();
  const waiting: Array<() => void> = [];
  let busy = false;
  /** Run time of the statements that ended, and when the one running now started. */
  let endedMs = 0;
  let startedAt: number | undefined;
  const clock = () => endedMs + (startedAt === undefined ? 0 : now() - startedAt);
  const admitNext = () => {
    if (busy) return;
    const start = waiting.shift();
    if (!start) return;
    busy = true;
    start();
  };
  return {
    run<T>(statement: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      signal?.throwIfAborted();
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          const at = waiting.indexOf(start);
          if (at < 0) return; // already running: the engine finishes it (chDB cannot interrupt one)
          waiting.splice(at, 1);
          reject(signal!.reason);
        };
        const start = () => {
          signal?.removeEventListener('abort', onAbort);
          startedAt = now();
          // A statement that throws synchronously fails like one that rejects.
          Promise.resolve()
            .then(statement)
            .then(resolve, reject)
            .finally(() => {
              endedMs = clock();
              startedAt = undefined;
              busy = false;
              admitNext();
            });
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(start);
        admitNext();
      });
    },
    runMs: clock,
  };
}

/** Statements that only read: the rest (INSERT, ALTER, CREATE, OPTIMIZE, SET, USE…) are writes. */
const READ_STATEMENT = /^[\s(]*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;

/** Whether a statement's text reads only; leading comments are passed over. */
export function statementKind(sql: string): StatementKind {
  const text = sql.replace(/^(\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/))*/, '');
  return READ_STATEMENT.test(text) ? 'read' : 'write';
}
