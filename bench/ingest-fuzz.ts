// Ingest under a stream of pathological bodies next to a normal export (see the ingest
// limits documentation): the answer-time distribution, the worst answer, the normal export's
// ack times, /healthz while it runs, and the service's memory before and after.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { devKey, startChildService } from '../test/support/child-service.ts';
import { badAnswers, fuzzBodies, sendFuzz, type FuzzAnswer } from '../test/support/otlp-fuzz.ts';
import { startNormalExport } from '../test/support/normal-export.ts';
import { gcSummary, parseGcTrace } from './gc-trace.ts';

const BODIES = Number(process.env.BENCH_FUZZ_BODIES ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_FUZZ_CONCURRENCY ?? 8);
const SEED = Number(process.env.BENCH_FUZZ_SEED ?? 16);
/** BENCH_FUZZ_TRACE_GC=1: the service runs with --trace-gc, and its collector pauses are summed up. */
const TRACE_GC = process.env.BENCH_FUZZ_TRACE_GC === '1';

/** Resident and peak resident memory of a process, from /proc (Linux). */
function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function distribution(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return ['p50', 'p90', 'p99', 'p99.9'].map((name) => `${name} ${percentile(sorted, Number(name.slice(1))).toFixed(0)} ms`).concat(`max ${sorted.at(-1)?.toFixed(0)} ms`).join(', ');
}

/** One GET on a connection of its own (as a load balancer's probe has), resolving with its status. */
function probe(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0))).on('error', reject);
  });
}

/** Probes /healthz every 100 ms and keeps each answer time (and the probes that failed). */
function probeHealth(url: string) {
  const times: number[] = [];
  let failed = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      const status = await probe(`${url}/healthz`).catch(() => 0);
      if (status === 200) times.push(performance.now() - started);
      else failed++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { times, failed: () => failed, stop: async () => ((running = false), await done) };
}

async function storedSpanIds(url: string, key: string, traceId: string): Promise<string[]> {
  const res = await fetch(`${url}/api/v1/traces/${traceId}`, { headers: { 'x-api-key': key } });
  if (res.status !== 200) return [];
  type Node = { spanId: string; children?: Node[] };
  const flatten = (nodes: Node[]): string[] => nodes.flatMap((n) => [n.spanId, ...flatten(n.children ?? [])]);
  return flatten(((await res.json()) as { spans: Node[] }).spans);
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-fuzz-bench-'));
  const spawnedAt = performance.now();
  const service = await startChildService(
    { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'error' },
    TRACE_GC ? { nodeArgs: ['--trace-gc'], keepOutput: true } : {},
  );
  try {
    const key = devKey(dataDir);
    const pid = service.process.pid!;
    const next = fuzzBodies(SEED);
    const before = memoryOf(pid);
    const loadBefore = loadavg()[0]!;
    console.log(`service pid ${pid}: RSS ${before.rssMiB} MiB before; ${BODIES} bodies, ${CONCURRENCY} at a time, seed ${SEED}; load average ${loadBefore.toFixed(1)}`);

    const health = probeHealth(service.url);
    const normal = startNormalExport(service.url, key);
    const started = performance.now();
    const progress = setInterval(() => console.log(`… ${((performance.now() - started) / 1000).toFixed(0)} s, RSS ${memoryOf(pid).rssMiB} MiB`), 60_000);
    const answers = await sendFuzz({ url: service.url, key, next, count: BODIES, concurrency: CONCURRENCY });
    clearInterval(progress);
    const seconds = (performance.now() - started) / 1000;
    await normal.finish();
    await health.stop();
    const after = memoryOf(pid);

    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    const worst = answers.reduce<FuzzAnswer>((w, a) => (a.ms > w.ms ? a : w), answers[0]!);
    // The machine is shared: the load says how much of the answer times is the service's own.
    console.log(`load average ${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`);
    console.log(`${answers.length} answers in ${seconds.toFixed(0)} s: ${[...byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ')}`);
    console.log(`answer times: ${distribution(answers.map((a) => a.ms))}; over 2 s: ${answers.filter((a) => a.ms > 2000).length}`);
    console.log(`worst answer: ${worst.ms.toFixed(0)} ms, ${worst.status}, ${worst.kind}`);
    const kinds = [...new Set(answers.map((a) => a.kind))].sort();
    for (const kind of kinds) console.log(`  ${kind}: ${distribution(answers.filter((a) => a.kind === kind).map((a) => a.ms))}`);
    // The slowest answers, placed on the service's clock (ms since it was spawned) to set beside its GC pauses.
    for (const a of [...answers].sort((x, y) => y.ms - x.ms).slice(0, 10)) {
      console.log(`  slow: ${a.ms.toFixed(0)} ms, ${a.status}, ${a.kind}, sent at ${(a.sentAt - spawnedAt).toFixed(0)} ms; stages: ${a.stages ?? 'none'}`);
    }
    for (const a of answers.filter((x) => x.status === 0)) {
      console.log(`  no answer: ${a.kind} after ${a.ms.toFixed(0)} ms, sent at ${(a.sentAt - spawnedAt).toFixed(0)} ms: ${a.error}`);
    }
    if (TRACE_GC) for (const line of gcSummary(parseGcTrace(service.output()))) console.log(line);
    console.log(`not allowed (5xx other than 503 with Retry-After, or no answer): ${badAnswers(answers).length}`);
    console.log(`normal export: ${normal.ackMs.length} exports, ${normal.failures} failed; ack times ${distribution(normal.ackMs)}`);
    console.log(`/healthz: ${health.times.length} probes answered, ${health.failed()} failed; ${distribution(health.times)}`);
    console.log(`service RSS: ${before.rssMiB} MiB before, ${after.rssMiB} MiB after, peak ${after.peakMiB} MiB`);

    // Every span the normal export had acked, readable exactly once.
    const deadline = Date.now() + 120_000;
    let missing = 0;
    let duplicated = 0;
    for (const [traceId, spanIds] of normal.acked) {
      let stored = await storedSpanIds(service.url, key, traceId);
      while (stored.length < spanIds.length && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        stored = await storedSpanIds(service.url, key, traceId);
      }
      missing += spanIds.filter((id) => !stored.includes(id)).length;
      duplicated += stored.length - new Set(stored).size;
    }
    const acked = [...normal.acked.values()].reduce((n, ids) => n + ids.length, 0);
    console.log(`normal export: ${acked} spans acked, ${missing} missing, ${duplicated} duplicated`);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
