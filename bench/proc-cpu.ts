// CPU time from /proc: of a whole process, and of each thread of this one with its name.
import { readFileSync, readdirSync } from 'node:fs';

/** Linux reports utime and stime in USER_HZ ticks, 100 per second on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** Seconds of two tick counts of a /proc stat line, by field number (as proc(5) counts them; the command name may hold spaces). */
function statSeconds(stat: string, first: number, second: number): number {
  // The fields after the command name start at field 3 (the state).
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[first - 3]) + Number(fields[second - 3])) / TICKS_PER_SECOND;
}

/** utime + stime (fields 14 and 15) in seconds. */
function statCpuSeconds(stat: string): number {
  return statSeconds(stat, 14, 15);
}

/** CPU seconds (user + system, all threads, living or ended) a process has used so far. */
export function cpuSeconds(pid: number | 'self'): number {
  return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * CPU seconds of a process's children that it has waited for (cutime + cstime, fields 16 and
 * 17): redis-server forks a child for each rewrite of its append-only file, and that child's
 * CPU is in no thread of the server itself.
 */
export function waitedChildrenCpuSeconds(pid: number): number {
  return statChildrenCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

export function statChildrenCpuSeconds(stat: string): number {
  return statSeconds(stat, 16, 17);
}

export interface ThreadCpu {
  /** The thread's name (comm): chDB names its pools' threads; Node's own threads are all "node". */
  name: string;
  seconds: number;
}

/** CPU seconds so far of each living thread of this process, by thread id. */
export function threadCpu(): Map<number, ThreadCpu> {
  const threads = new Map<number, ThreadCpu>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      threads.set(Number(tid), { name, seconds: statCpuSeconds(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')) });
    } catch {
      // The thread ended between the listing and the read: its time stays in the process total.
    }
  }
  return threads;
}

/** Child processes of this one running `command` (their comm), e.g. the redis-server the service started. */
export function childProcesses(command: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
      if (parent === process.pid && name === command) pids.push(Number(entry));
    } catch {
      // The process exited while the listing was read.
    }
  }
  return pids;
}

/**
 * CPU each thread of this process uses from now until stop(), listed every `intervalMs` and
 * booked under the name the thread had at each listing: chDB renames a pool thread for the
 * job it runs (e.g. "Collector" while formatting a query's output), then back to "ThreadPool".
 * A thread that starts and ends between two listings is missed (its time stays only in the
 * process total).
 */
export function trackThreadCpu(intervalMs: number): { stop(): Map<number, Map<string, number>> } {
  const booked = new Map<number, Map<string, number>>();
  const last = new Map<number, number>();
  for (const [tid, t] of threadCpu()) last.set(tid, t.seconds);
  const list = () => {
    for (const [tid, t] of threadCpu()) {
      const byName = booked.get(tid) ?? new Map<string, number>();
      booked.set(tid, byName);
      byName.set(t.name, (byName.get(t.name) ?? 0) + t.seconds - (last.get(tid) ?? 0));
      last.set(tid, t.seconds);
    }
  };
  const timer = setInterval(list, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      list();
      return booked;
    },
  };
}
