import { drainPending } from 'chdb';
import { createChdbConnection, type ChdbConnection } from 'chdb/connection';
import { StorageUnavailableError } from './storage-unavailable.ts';

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
 * Each session keeps a line of its own (one statement at a time), so statements run in
 * the order the line gives rather than the order their threads happen to reach the lock,
 * and the write line's clock tells how long writes actually ran, without the time they
 * waited for their turn. On both lines requests' statements go first (the API's reads, and
 * the writer's inserts, which acks wait on): the statements of work no one waits on (the
 * writer's passes, monitors, evaluations: Storage.background) wait while a request's
 * statement waits or has just ended (createStatementLine). A session of their own for
 * background reads was tried and made requests' reads slower: the background reads then
 * ran beside them on the same two cores (docs/benchmarks.md, "Background reads behind
 * requests' reads").
 */
export type StatementKind = 'read' | 'write';

/** Whose statement it is: a request's (or an ack's), or work no one waits on. */
export type StatementPriority = 'request' | 'background';

/** What the sessions tell about themselves, for the writer's block sizes. */
export interface EngineClock {
  /**
   * Milliseconds the engine has spent running statements on `session` since the sessions
   * were opened (those of `priority` alone when given): a clock that runs only while a
   * statement runs there, so an insert's cost can be read without the time it waited for
   * its turn (the writer's block sizes read the write session's), and a bench tells
   * waiting reads from slow ones.
   */
  runMs(session: StatementKind, priority?: StatementPriority): number;
}

export interface EngineSessions extends EngineClock {
  /** Runs `statement` on `session` when the line gives it its turn; a `signal` aborted while it waits takes it out of line. */
  run<T>(session: StatementKind, statement: (session: ChdbConnection) => Promise<T>, opts?: { signal?: AbortSignal; priority?: StatementPriority }): Promise<T>;
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
    run: (kind, statement, opts) => lines[kind].run(() => statement(sessions[kind]), opts),
    async onBoth(sql) {
      await Promise.all([write, read].map((session) => session.chdb.queryAsync(sql)));
    },
    runMs: (kind, priority) => lines[kind].runMs(priority),
    async close() {
      // No statement may start on a closed session (chDB crashes the process): those still
      // waiting, a background one waiting out its grace among them, are refused first.
      lines.read.close();
      lines.write.close();
      await Promise.all([read.close(), write.close()]);
      // chDB's close returns while a statement it cannot interrupt still runs on an engine
      // thread (it defers the session's teardown behind it). A process that exits then tears
      // the engine down under that thread and dies of SIGSEGV (a SIGTERM during an insert):
      // closed means nothing of ours still runs in the engine.
      await drainPending();
    },
  };
}

/**
 * After a request's statement ends, background statements wait this long for the next
 * one: a request of several statements (a list page: choose, then records) and a screen
 * asking its reads one after another leave gaps of a millisecond or two between them.
 */
export const BACKGROUND_GRACE_MS = 50;
/** A background statement passed over this long goes next whatever waits: requests asking without pause never stop the writer's passes. */
export const BACKGROUND_MAX_WAIT_MS = 1_000;

/** One statement at a time, requests' first, with a clock of the time statements ran. */
export interface StatementLine {
  run<T>(statement: () => Promise<T>, opts?: { signal?: AbortSignal; priority?: StatementPriority }): Promise<T>;
  /** Milliseconds statements ran (those of `priority` alone when given). */
  runMs(priority?: StatementPriority): number;
  /** Refuses the statements still waiting and every later one; the one running ends as it will. */
  close(): void;
}

/** What a statement asked of a closed line (or still waiting when it closed) fails with: storage unavailable, as the closed connection answers. */
export class StatementLineClosedError extends StorageUnavailableError {
  override name = 'StatementLineClosedError';
  constructor() {
    super('the embedded engine is closing: the statement was not run');
  }
}

/**
 * A line of statements: requests' statements in the order asked for; a background
 * statement when no request's statement waits and none ended in the last `graceMs`, or
 * once it has waited `maxWaitMs`. A running statement is never interrupted (chDB cannot).
 */
export function createStatementLine({ graceMs = BACKGROUND_GRACE_MS, maxWaitMs = BACKGROUND_MAX_WAIT_MS } = {}): StatementLine {
  const now = () => performance.now();
  const waiting: Record<StatementPriority, Array<{ start: () => void; refuse: () => void; since: number }>> = { request: [], background: [] };
  let busy = false;
  let closed = false;
  /** Run time of the statements that ended, and the one running now: when it started and whose it is. */
  const endedMs: Record<StatementPriority, number> = { request: 0, background: 0 };
  let running: { since: number; priority: StatementPriority } | undefined;
  let requestEndedAt = -Infinity;
  let wake: NodeJS.Timeout | undefined;
  const clock = (priority: StatementPriority) => endedMs[priority] + (running?.priority === priority ? now() - running.since : 0);
  const admitNext = () => {
    if (busy) return;
    clearTimeout(wake);
    wake = undefined;
    const [request] = waiting.request;
    const [background] = waiting.background;
    const next = request ?? background;
    if (!next) return;
    if (next === background) {
      const dueAt = Math.min(requestEndedAt + graceMs, background.since + maxWaitMs);
      if (now() < dueAt) {
        wake = setTimeout(admitNext, dueAt - now());
        return;
      }
    }
    waiting[next === request ? 'request' : 'background'].shift();
    busy = true;
    next.start();
  };
  return {
    run<T>(statement: () => Promise<T>, { signal, priority = 'request' }: { signal?: AbortSignal; priority?: StatementPriority } = {}): Promise<T> {
      signal?.throwIfAborted();
      if (closed) return Promise.reject(new StatementLineClosedError());
      return new Promise<T>((resolve, reject) => {
        const queue = waiting[priority];
        const onAbort = () => {
          const at = queue.indexOf(entry);
          if (at < 0) return; // already running: the engine finishes it (chDB cannot interrupt one)
          queue.splice(at, 1);
          reject(signal!.reason);
        };
        const entry = {
          since: now(),
          refuse: () => {
            signal?.removeEventListener('abort', onAbort);
            reject(new StatementLineClosedError());
          },
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            running = { since: now(), priority };
            // A statement that throws synchronously fails like one that rejects.
            Promise.resolve()
              .then(statement)
              .then(resolve, reject)
              .finally(() => {
                endedMs[priority] = clock(priority);
                running = undefined;
                if (priority === 'request') requestEndedAt = now();
                busy = false;
                admitNext();
              });
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(entry);
        admitNext();
      });
    },
    runMs: (priority) => (priority ? clock(priority) : clock('request') + clock('background')),
    close() {
      closed = true;
      clearTimeout(wake);
      wake = undefined;
      for (const queue of Object.values(waiting)) for (const entry of queue.splice(0)) entry.refuse();
    },
  };
}

/** Statements that only read: the rest (INSERT, ALTER, CREATE, OPTIMIZE, SET, USE…) are writes. */
const READ_STATEMENT = /^[\s(]*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;

/** Whether a statement's text reads only; leading comments are passed over. */
export function statementKind(sql: string): StatementKind {
  const text = sql.replace(/^(\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/))*/, '');
  return READ_STATEMENT.test(text) ? 'read' : 'write';
}
