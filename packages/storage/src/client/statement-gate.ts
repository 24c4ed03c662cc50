/**
 * The order in which the embedded engine's statements run: reads before writes.
 *
 * How chDB runs concurrent calls (chdb 3.4, measured): every `queryAsync` goes to a libuv
 * worker thread, and the native connection lets one statement run at a time; the rest
 * block on its lock in whatever order the threads reach it (two `SELECT sleep(1)` on one
 * session take 2 s; on two sessions 1 s). So reads on our one session never ran in parallel
 * with each other, and there is nothing of that to keep; what the lock lacks is an order.
 * A read that arrived while the writer's inserts were queued waited behind all of them,
 * each up to seconds long (issue 33: list page p99 7.9 s with ingest saturated).
 *
 * The gate lets one statement through at a time and chooses the next: the oldest waiting
 * read, unless a write has waited longer than `writeWaitBoundMs`. Writes still wait their
 * turn, but a steady stream of reads cannot hold them forever: the writer's jobs would stop
 * being acknowledged, the queue would fill and ingest would refuse everything. With the
 * bound, writes get the engine at least once per bound plus one insert, while reads keep
 * the rest of it.
 */
export type StatementKind = 'read' | 'write';

/** What the gate tells about itself, for ingest's backpressure and the writer's block sizes. */
export interface StatementGateState {
  /**
   * How long the oldest read now waiting has waited while writes held the engine, in ms (0
   * when none waits). Time it spent behind other reads does not count: a heavy read that
   * holds the others up is not something fewer inserts would cure.
   */
  readWaitOnWritesMs(): number;
  /**
   * Milliseconds the engine has spent running write statements since the gate was made: a
   * clock that runs only while a write holds the engine, so an insert's cost can be read
   * without the time it waited for its turn.
   */
  writeRunMs(): number;
}

export interface StatementGate extends StatementGateState {
  /** Runs `statement` when its turn comes; a `signal` aborted while it waits takes it out of line. */
  run<T>(kind: StatementKind, statement: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/**
 * How long a write may be passed over for reads before it goes next: two of the writer's
 * target inserts (WRITER_BATCH_MAX_INSERT_MS, 1 s by default). Reads then keep at least two
 * thirds of the engine under a continuous stream of them, and the writer one insert in every
 * three seconds, enough to keep acknowledging jobs while ingest's read-wait backpressure
 * (INGEST_MAX_READ_WAIT_MS) slows what comes in.
 */
export const WRITE_WAIT_BOUND_MS = 2_000;

interface Waiting {
  /** When it joined the line (performance.now()). */
  since: number;
  /** The write clock when it joined the line. */
  writeClockAt: number;
  start(): void;
}

/** A gate for one engine session; `writeWaitBoundMs` is the longest a write is passed over for reads. */
export function createStatementGate(writeWaitBoundMs = WRITE_WAIT_BOUND_MS): StatementGate {
  const now = () => performance.now();
  const reads: Waiting[] = [];
  const writes: Waiting[] = [];
  let busy = false;
  /** Write time of the writes that ended, and when the one running now (if a write) started. */
  let endedWritesMs = 0;
  let writeStartedAt: number | undefined;
  const writeClock = () => endedWritesMs + (writeStartedAt === undefined ? 0 : now() - writeStartedAt);

  const next = (): Waiting | undefined => {
    const oldestWrite = writes[0];
    if (oldestWrite && now() - oldestWrite.since > writeWaitBoundMs) return writes.shift();
    return reads.shift() ?? writes.shift();
  };
  const admitNext = () => {
    if (busy) return;
    const waiting = next();
    if (!waiting) return;
    busy = true;
    waiting.start();
  };

  return {
    run<T>(kind: StatementKind, statement: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      signal?.throwIfAborted();
      return new Promise<T>((resolve, reject) => {
        const line = kind === 'read' ? reads : writes;
        const onAbort = () => {
          const at = line.indexOf(waiting);
          if (at < 0) return; // already running: the engine finishes it (chDB cannot interrupt one)
          line.splice(at, 1);
          reject(signal!.reason);
        };
        const waiting: Waiting = {
          since: now(),
          writeClockAt: writeClock(),
          start() {
            signal?.removeEventListener('abort', onAbort);
            if (kind === 'write') writeStartedAt = now();
            // A statement that throws synchronously fails like one that rejects.
            Promise.resolve()
              .then(statement)
              .then(resolve, reject)
              .finally(() => {
                endedWritesMs = writeClock();
                writeStartedAt = undefined;
                busy = false;
                admitNext();
              });
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        line.push(waiting);
        admitNext();
      });
    },
    // The oldest read joined the line first, so it has waited through the most write time.
    readWaitOnWritesMs: () => (reads[0] ? writeClock() - reads[0].writeClockAt : 0),
    writeRunMs: writeClock,
  };
}

/** Statements that only read: the rest (INSERT, ALTER, CREATE, OPTIMIZE, SET, USE…) are writes. */
const READ_STATEMENT = /^[\s(]*(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;

/** Whether a statement's text reads only; leading comments are passed over. */
export function statementKind(sql: string): StatementKind {
  const text = sql.replace(/^(\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/))*/, '');
  return READ_STATEMENT.test(text) ? 'read' : 'write';
}
