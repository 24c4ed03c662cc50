// Per-stage CPU breakdown of a bench phase, measured: CPU time of every thread of this
// process (/proc/self/task), of redis-server and of the senders (/proc/<pid>/stat); the time
// of each JS thread split over stages by its sampled CPU profile (see cpu-stages.ts).
import { pbkdf2 } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Profiler } from 'node:inspector';
import { childProcesses, cpuSeconds, threadCpu, trackThreadCpu, waitedChildrenCpuSeconds } from './proc-cpu.ts';
import { isWaiting, jsRoleOf, stageOfFrame, stageOfNativeThread, STAGES, type Stage } from './cpu-stages.ts';
import { startJsThreadProfiles, type JsThreadProfile } from './js-thread-profiles.ts';

/** The profiles' sampling interval: ~10,000 samples per JS thread in a 10-second phase. */
const SAMPLING_INTERVAL_US = Number(process.env.BENCH_CPU_SAMPLING_US ?? 1000);

/** How often threads are listed: a thread that ends keeps its time up to its last listing, and a renamed one is booked per name. */
const THREAD_LIST_INTERVAL_MS = 250;

export interface CpuBreakdown {
  seconds: number;
  spans: number;
  /** CPU seconds per stage. */
  stages: Map<Stage, number>;
  /** CPU seconds per thread group (main thread, decode threads, chDB pools, processes…). */
  threads: Map<string, number>;
  /** The largest sources of "other" (a script, or a profile pseudo-frame such as "(program)"). */
  otherSources: Array<[string, number]>;
  /** Event-loop utilization of the main thread over the phase. */
  mainEventLoopUtilization: number;
  samples: number;
  loadAverage: number[];
}

/**
 * Starts measuring now. `senderPids` are the load generators' processes; the service's
 * redis-server is found as this process's child.
 */
export async function startCpuBreakdown(opts: { senderPids: number[]; profileDir?: string }) {
  const redisPids = childProcesses('redis-server');
  // The probe runs before the profilers start, so its work is in no profile.
  const libuv = await libuvPoolThreads();
  const profiles = await startJsThreadProfiles(SAMPLING_INTERVAL_US, (url) => jsRoleOf(url) !== 'other');
  const elu = performance.eventLoopUtilization();
  const t0 = performance.now();
  const sum = (pids: number[]) => pids.reduce((n, pid) => n + cpuSeconds(pid), 0);
  const rewrites = () => redisPids.reduce((n, pid) => n + waitedChildrenCpuSeconds(pid), 0);
  const start = { process: cpuSeconds('self'), redis: sum(redisPids), redisRewrites: rewrites(), senders: sum(opts.senderPids) };
  const threadTracker = trackThreadCpu(THREAD_LIST_INTERVAL_MS);

  return {
    async stop(spans: number): Promise<CpuBreakdown> {
      const threadSeconds = threadTracker.stop();
      const processSeconds = cpuSeconds('self') - start.process;
      const redisSeconds = sum(redisPids) - start.redis;
      // A rewrite still running at the end is counted only once Redis has waited for it: not in this phase.
      const rewriteSeconds = rewrites() - start.redisRewrites;
      const senderSeconds = sum(opts.senderPids) - start.senders;
      const mainEventLoopUtilization = performance.eventLoopUtilization(elu).utilization;
      const seconds = (performance.now() - t0) / 1000;
      const js = await profiles.stop();
      if (opts.profileDir) saveProfiles(opts.profileDir, js);

      const stages = new Map<Stage, number>(STAGES.map((s) => [s, 0]));
      const threads = new Map<string, number>();
      const other = new Map<string, number>();
      const add = <K>(map: Map<K, number>, key: K, s: number) => map.set(key, (map.get(key) ?? 0) + s);

      const jsByTid = new Map(js.map((p) => [p.tid, p]));
      let samples = 0;
      let listed = 0;
      for (const [tid, byName] of threadSeconds) {
        const profile = jsByTid.get(tid);
        for (const [name, cpu] of byName) {
          listed += cpu;
          if (profile?.profile) {
            add(threads, jsThreadGroup(profile.thread), cpu);
            samples += spreadOverStages(profile.thread, profile.profile, cpu, stages, other);
          } else if (profile) {
            add(threads, 'other JS threads (not profiled)', cpu);
            add(stages, 'other', cpu);
            add(other, `JS thread ${path.basename(profile.thread)} (not profiled)`, cpu);
          } else if (libuv.has(tid)) {
            add(threads, 'libuv pool (runs the chDB calls)', cpu);
            add(stages, 'engine insert (JS call, libuv thread running chDB, chDB ThreadPool)', cpu);
          } else if (name === 'node') {
            add(threads, 'V8 helper and other Node threads', cpu);
            add(stages, 'V8 helper threads (parallel GC, compiler) and other Node threads', cpu);
          } else {
            add(threads, `"${name}" (chDB or V8)`, cpu);
            add(stages, stageOfNativeThread(name), cpu);
          }
        }
      }
      // Threads that started and ended between two listings: their time is only in the process total.
      const unlisted = processSeconds - listed;
      add(threads, 'threads that ended between listings', unlisted);
      add(stages, 'other', unlisted);
      add(other, 'threads that ended between listings', unlisted);
      add(threads, 'redis-server', redisSeconds);
      add(stages, 'Redis (redis-server process)', redisSeconds);
      add(threads, 'redis-server append-only file rewrites', rewriteSeconds);
      add(stages, "Redis append-only file rewrites (redis-server's forked children)", rewriteSeconds);
      add(threads, 'senders', senderSeconds);
      add(stages, 'senders (separate processes)', senderSeconds);

      const otherSources = [...other].sort((a, b) => b[1] - a[1]).slice(0, 5);
      return { seconds, spans, stages, threads, otherSources, mainEventLoopUtilization, samples, loadAverage: loadavg() };
    },
  };
}

/** Writes each thread's profile as a .cpuprofile file (Chrome DevTools and VS Code open them). */
function saveProfiles(dir: string, profiles: JsThreadProfile[]): void {
  mkdirSync(dir, { recursive: true });
  for (const p of profiles) if (p.profile) writeFileSync(path.join(dir, `${jsRoleOf(p.thread)}-${p.tid}-${path.basename(p.thread)}.cpuprofile`), JSON.stringify(p.profile));
}

function jsThreadGroup(thread: string): string {
  const role = jsRoleOf(thread);
  return role === 'main' ? 'main thread (JS)' : `${role} threads (JS)`;
}

/**
 * Splits a JS thread's measured CPU over stages in proportion to its profile's busy samples
 * (idle ones, the thread waiting for its event loop, are not CPU). Returns the busy samples.
 */
export function spreadOverStages(thread: string, profile: Profiler.Profile, cpu: number, stages: Map<Stage, number>, other: Map<string, number>): number {
  const role = jsRoleOf(thread);
  const { nodes, samples } = profile;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  // A sample's stage depends only on its node's stack, so each node is resolved once.
  const resolved = new Map<number, { stage: Stage; source: string }>();
  const resolve = (id: number): { stage: Stage; source: string } => {
    const leaf = byId.get(id)!.callFrame;
    if (leaf.functionName === '(garbage collector)') return { stage: 'garbage collection on JS threads', source: '' };
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const stage = stageOfFrame(byId.get(at)!.callFrame.url, role);
      if (stage) return { stage, source: '' };
    }
    return { stage: 'other', source: sourceName(leaf) };
  };
  const counts = new Map<number, number>();
  let busy = 0;
  for (const id of samples ?? []) {
    if (isWaiting(byId.get(id)!.callFrame)) continue;
    counts.set(id, (counts.get(id) ?? 0) + 1);
    busy++;
  }
  if (busy === 0) {
    stages.set('other', stages.get('other')! + cpu);
    other.set(`${thread} (no busy samples)`, (other.get(`${thread} (no busy samples)`) ?? 0) + cpu);
    return 0;
  }
  for (const [id, n] of counts) {
    if (!resolved.has(id)) resolved.set(id, resolve(id));
    const { stage, source } = resolved.get(id)!;
    const share = (cpu * n) / busy;
    stages.set(stage, stages.get(stage)! + share);
    if (stage === 'other') other.set(source, (other.get(source) ?? 0) + share);
  }
  return busy;
}

const REPO_URL = `${pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')).href}/`;

/** A frame as a reader knows it: its script relative to node_modules or the repository, or its pseudo-name. */
function sourceName(frame: Profiler.ProfileNode['callFrame']): string {
  if (!frame.url) return frame.functionName || '(anonymous)';
  return frame.url.replace(/^file:\/\/.*?\/node_modules\//, '').replace(REPO_URL, '');
}

/**
 * The threads of libuv's pool (which run chDB's async calls) are named "node" like V8's own
 * helpers; they are the ones that pick up a burst of pbkdf2 work, which runs on that pool.
 */
async function libuvPoolThreads(): Promise<Set<number>> {
  const poolSize = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const before = threadCpu();
  await Promise.all(
    Array.from({ length: poolSize * 4 }, () => new Promise((resolve) => pbkdf2('probe', 'salt', 100_000, 32, 'sha256', resolve))),
  );
  const pool = new Set<number>();
  for (const [tid, t] of threadCpu()) {
    const gained = t.seconds - (before.get(tid)?.seconds ?? t.seconds);
    if (t.name === 'node' && tid !== process.pid && gained >= 0.03) pool.add(tid);
  }
  return pool;
}

/** Prints the breakdown: stages, thread groups, the largest "other" sources, event-loop use. */
export function printCpuBreakdown(b: CpuBreakdown): void {
  const total = [...b.stages.values()].reduce((n, s) => n + s, 0);
  const perThousand = (s: number) => ((s * 1000 * 1000) / b.spans).toFixed(1);
  const share = (s: number) => `${((s / total) * 100).toFixed(1)} %`;
  console.log(
    `CPU by stage over the end-to-end phase (${b.spans} spans in ${b.seconds.toFixed(1)} s, ${total.toFixed(1)} CPU s = ${(total / b.seconds).toFixed(2)} cores; load average ${b.loadAverage.map((l) => l.toFixed(1)).join(' ')}):`,
  );
  console.log('| stage | CPU ms per 1,000 spans | share |');
  console.log('| --- | ---: | ---: |');
  for (const [stage, s] of b.stages) if (s > 0) console.log(`| ${stage} | ${perThousand(s)} | ${share(s)} |`);
  console.log(`| total | ${perThousand(total)} | 100 % |`);
  console.log(`"other", largest sources (ms per 1,000 spans): ${b.otherSources.map(([src, s]) => `${src} ${perThousand(s)}`).join('; ') || 'none'}`);
  console.log(`CPU by thread (ms per 1,000 spans): ${[...b.threads].sort((x, y) => y[1] - x[1]).map(([t, s]) => `${t} ${perThousand(s)}`).join('; ')}`);
  console.log(`main thread event-loop utilization over the phase: ${(b.mainEventLoopUtilization * 100).toFixed(0)} %; ${b.samples} busy profile samples on the JS threads`);
}
