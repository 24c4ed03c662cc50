// What the ingest bench reads from the all-in-one service it runs in its own process: the
// ingest queue's depth, the writer's written rows, the process's RSS and the main
// thread's event-loop delay, sampled once a second over a phase.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { INGEST_QUEUE } from '@aos/queue';
import { METRIC_PREFIX } from '@aos/metrics';
import type { AllInOne } from '@aos/server';

const MiB = 2 ** 20;

/** Jobs the writers still hold (waiting and active) in the ingest queue, from the writer's queue gauge. */
export async function ingestQueueDepth(service: AllInOne): Promise<number> {
  const gauge = service.metrics.registry.getSingleMetric(`${METRIC_PREFIX}queue_jobs`);
  if (!gauge) throw new Error(`no ${METRIC_PREFIX}queue_jobs gauge: the writer registers it`);
  const { values } = await gauge.get();
  return values
    .filter((v) => v.labels.queue === INGEST_QUEUE && (v.labels.state === 'waiting' || v.labels.state === 'active'))
    .reduce((n, v) => n + v.value, 0);
}

/** Exports refused whole so far, by reason (overloaded: the queue's high-water mark; unavailable: Redis, the key store or the in-flight budget). */
export async function refusalsByReason(service: AllInOne): Promise<Record<string, number>> {
  const { values } = await service.metrics.ingestRefused.get();
  const byReason: Record<string, number> = {};
  for (const v of values) byReason[String(v.labels.reason)] = (byReason[String(v.labels.reason)] ?? 0) + v.value;
  return byReason;
}

export interface Sample {
  /** Seconds since the phase began. */
  t: number;
  depth: number;
  rss: number;
}

export interface PhaseProbe {
  samples: Sample[];
  /** Rows the writer stored since the phase began. */
  written(): number;
  /** Stops sampling; event-loop delay of the main thread over the phase, in ms, and the refusals it saw by reason. */
  stop(): Promise<{ eventLoop: { p50: number; p99: number; max: number }; refusals: Record<string, number> }>;
}

/** Samples queue depth and RSS once a second and the event-loop delay throughout, until stopped. */
export function probePhase(service: AllInOne): PhaseProbe {
  const samples: Sample[] = [];
  const rows0 = service.writer.stats.rows;
  const refusals0 = refusalsByReason(service);
  const t0 = performance.now();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const sample = async () => samples.push({ t: (performance.now() - t0) / 1000, depth: await ingestQueueDepth(service), rss: process.memoryUsage.rss() });
  let pending = sample();
  const timer = setInterval(() => (pending = pending.then(sample)), 1000);
  return {
    samples,
    written: () => service.writer.stats.rows - rows0,
    async stop() {
      clearInterval(timer);
      await pending;
      delay.disable();
      const ms = (ns: number) => ns / 1e6;
      const [before, after] = [await refusals0, await refusalsByReason(service)];
      const refusals = Object.fromEntries(Object.entries(after).map(([reason, n]) => [reason, n - (before[reason] ?? 0)]).filter(([, n]) => n !== 0));
      return { eventLoop: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) }, refusals };
    },
  };
}

/** The queue's depth is judged by its low point in windows this long (see depthSlope). */
const LOW_POINT_WINDOW_SECONDS = 5;

/**
 * How fast the queue's backlog grows, in jobs per second: the least-squares slope of its
 * low point in each LOW_POINT_WINDOW_SECONDS window. The writer takes jobs in blocks (about
 * fourteen at a time at 10,000 spans/s), so the depth saws between 0 and a block within
 * every second or two; fitted through every sample, where the teeth fall in a 25 s step
 * read as growth of 0.3 jobs/s with the queue empty at both ends. What the writer has not
 * caught up with shows in the low points.
 */
export function depthSlope(samples: readonly Sample[]): number {
  const windows = new Map<number, Sample>();
  for (const s of samples) {
    const w = Math.floor(s.t / LOW_POINT_WINDOW_SECONDS);
    const low = windows.get(w);
    if (!low || s.depth < low.depth) windows.set(w, s);
  }
  return leastSquaresSlope(windows.size >= 2 ? [...windows.values()] : samples);
}

function leastSquaresSlope(samples: readonly Sample[]): number {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const mt = samples.reduce((s, x) => s + x.t, 0) / n;
  const md = samples.reduce((s, x) => s + x.depth, 0) / n;
  const cov = samples.reduce((s, x) => s + (x.t - mt) * (x.depth - md), 0);
  const vt = samples.reduce((s, x) => s + (x.t - mt) ** 2, 0);
  return vt === 0 ? 0 : cov / vt;
}

/** Mean RSS of each third of the samples, and the peak, in MiB. */
export function rssThirds(samples: readonly Sample[]): { thirds: number[]; peak: number } {
  const thirds = [0, 1, 2].map((k) => samples.slice(Math.floor((k * samples.length) / 3), Math.floor(((k + 1) * samples.length) / 3)));
  return {
    thirds: thirds.map((t) => t.reduce((n, s) => n + s.rss, 0) / Math.max(1, t.length) / MiB),
    peak: Math.max(0, ...samples.map((s) => s.rss)) / MiB,
  };
}

/** The highest RSS seen since the tracker started (sampled once a second), with the memory's composition at that moment. */
export interface PeakRss {
  /** The peak so far in MiB and its composition, as one line. */
  describe(): string;
  stop(): void;
}

/**
 * Tracks the process's peak RSS from now on. The composition is taken at each new peak, so
 * the one described is the peak's own. The bench's own work in this process (the bare
 * inserts it builds and writes itself) gets a tracker of its own, so the service's peak is
 * not the bench's.
 */
export function trackPeakRss(service: AllInOne): PeakRss {
  let peak = 0;
  let composition = '';
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss <= peak) return;
    peak = rss;
    void memoryComposition(service).then((c) => (composition = c), () => {});
  };
  sample();
  // Unref'd: a bench that fails between start and stop still exits.
  const timer = setInterval(sample, 1000).unref();
  return {
    describe: () => `${(peak / MiB).toFixed(0)} MiB; at the peak: ${composition}`,
    stop: () => clearInterval(timer),
  };
}

/**
 * Where the process's memory is now, in MiB: the main thread's JS heap, buffers outside the
 * heaps, what the embedded engine's memory tracker counts, and the rest of the RSS (the
 * worker threads' heaps, allocators' retained free pages, code).
 */
export async function memoryComposition(service: AllInOne): Promise<string> {
  const m = process.memoryUsage();
  const result = await service.storage.client.query({ query: "SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'", format: 'JSONEachRow' });
  const engine = Number((await result.json<{ value: string }>())[0]?.value ?? 0);
  const parts = { 'main JS heap': m.heapTotal, 'buffers outside the heaps': m.external, 'engine (tracked)': engine, 'file-backed (code)': fileBackedRss() };
  const rest = m.rss - Object.values(parts).reduce((a, b) => a + b, 0);
  return [...Object.entries(parts), ['rest (worker heaps, allocator free pages)', rest] as const]
    .map(([name, bytes]) => `${name} ${(bytes / MiB).toFixed(0)}`)
    .join('; ')
    .concat(` (RSS ${(m.rss / MiB).toFixed(0)} MiB)`);
}

/** The process's resident pages mapped from files (chDB's and Node's code), from /proc/self/smaps_rollup; 0 off Linux. */
function fileBackedRss(): number {
  let text: string;
  try {
    text = readFileSync('/proc/self/smaps_rollup', 'utf8');
  } catch {
    return 0;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return (kib('Rss') - kib('Anonymous')) * 1024;
}

/** Waits until the writers have emptied the ingest queue (or `maxSeconds` passed); the depth left. */
export async function drainQueue(service: AllInOne, maxSeconds: number): Promise<number> {
  const deadline = performance.now() + maxSeconds * 1000;
  let depth = await ingestQueueDepth(service);
  while (depth > 0 && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    depth = await ingestQueueDepth(service);
  }
  return depth;
}

/** The p-th percentile of unsorted values (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
