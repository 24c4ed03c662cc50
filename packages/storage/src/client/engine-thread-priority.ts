import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

const TASKS = '/proc/self/task';

export interface EngineThreadPriority {
  /** Threads lowered so far (for tests and logs). */
  readonly lowered: number;
  stop(): void;
}

/**
 * Gives the embedded engine's threads a higher Linux nice value than the rest of the process.
 *
 * chDB runs inside this process, and on a small machine its inserts and merges can take
 * every core for seconds at a time; the threads that answer exporters (the event loop, the
 * decode threads) then wait for CPU behind them, and acks slow down even at half load.
 * With the engine niced the scheduler runs those threads first, and the engine gets every
 * cycle they leave: its throughput is unchanged unless the cores are full, and then the
 * queue grows and ingest's backpressure answers 503 early, as it should.
 *
 * ClickHouse's own `os_threads_nice_value_*` settings need CAP_SYS_NICE (raising a thread's
 * nice value does not) and do not reach the merge threads of an embedded engine, so the
 * threads are found here instead: chDB names every thread it starts ("ThreadPool",
 * "MergeMutate", "ChunkParser", …) while Node's own threads (the main thread, worker
 * threads, libuv's pool, V8's helpers) carry the process's name. Threads the engine starts
 * later inherit the nice value of the pool thread that starts them; pools that grow from
 * a "node" thread are caught by the next scan. Linux only; elsewhere a no-op.
 */
export function lowerEngineThreadPriority(nice: number, scanIntervalMs = 1000): EngineThreadPriority {
  const none = { lowered: 0, stop() {} };
  let base: number;
  try {
    base = nicenessOf(process.pid);
  } catch {
    return none; // no /proc: not Linux
  }
  // A process already at this nice value or below it has nothing to give way to.
  if (nice <= base) return none;
  const seen = new Set<number>();
  let lowered = 0;
  const scan = () => {
    let tids: number[];
    try {
      tids = readdirSync(TASKS).map(Number);
    } catch {
      return; // /proc went away (a sandbox unmounting it): nothing to renice
    }
    const nodeNames = nodeThreadNames();
    const alive = new Set(tids);
    for (const tid of seen) if (!alive.has(tid)) seen.delete(tid);
    for (const tid of tids) {
      if (seen.has(tid)) continue;
      seen.add(tid);
      try {
        if (tid === process.pid || isNodeThread(readFileSync(`${TASKS}/${tid}/comm`, 'utf8').trim(), nodeNames)) continue;
        // Only threads at the process's own priority: the engine raises a few of its own
        // (its memory tracker runs at -20), and those keep what it chose.
        if (nicenessOf(tid) !== base) continue;
        setPriority(tid, nice);
        lowered += 1;
      } catch {
        // The thread ended between the listing and here.
      }
    }
  };
  scan();
  const timer = setInterval(scan, scanIntervalMs);
  timer.unref();
  return {
    get lowered() {
      return lowered;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * Node's own threads are named "node", or after the process title once one is set (a thread
 * takes its creator's name, so the main thread's name now); V8's profiler names its threads
 * "v8:…". The engine names its threads itself, after its pools.
 */
function nodeThreadNames(): Set<string> {
  const names = new Set(['node']);
  try {
    names.add(readFileSync(`${TASKS}/${process.pid}/comm`, 'utf8').trim());
  } catch {
    // The main thread's name is unreadable: "node" alone.
  }
  return names;
}

function isNodeThread(name: string, nodeNames: ReadonlySet<string>): boolean {
  return nodeNames.has(name) || name.startsWith('v8:');
}

/** The nice value of one thread of this process, from /proc (field 19 of its stat line). */
export function nicenessOf(tid: number): number {
  const stat = readFileSync(`${TASKS}/${tid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}
