// The collector's share of ingest (issue 33, item 3): the all-in-one service as its own
// process under --trace-gc takes a fixed number of realistic 1,000-span OTLP exports, as
// fast as it acks them, until every span is readable; then each isolate's collections are
// counted and their pauses summed, per 400,000 and per 1,000 spans, beside the service's CPU.
// Counts of collections move little with the machine's load; pause times do.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { devKey, startChildService } from '../test/support/child-service.ts';
import { agentRequest } from './agent-spans.ts';
import { parseGcTrace, type GcPause } from './gc-trace.ts';
import { cpuSeconds } from './proc-cpu.ts';

const SPANS = Number(process.env.BENCH_GC_SPANS ?? 400_000);
const CONCURRENCY = Number(process.env.BENCH_GC_CONCURRENCY ?? 4);
/** Node flags for the service besides --trace-gc (e.g. `--max-semi-space-size=16`), to compare levers. */
const NODE_ARGS = (process.env.BENCH_GC_NODE_ARGS ?? '').split(' ').filter(Boolean);

// Every request its own traces (a repeated one would be deduplicated, and counted once), made before the service starts.
const pool = Array.from({ length: Math.ceil(SPANS / 1000) }, (_, i) => agentRequest(1000, i));

async function sendAll(url: string, key: string): Promise<{ acked: number; refused: number }> {
  let next = 0;
  let acked = 0;
  let refused = 0;
  const requests = Math.ceil(SPANS / 1000);
  const connection = async () => {
    while (next < requests) {
      const request = pool[next++]!;
      for (;;) {
        const res = await fetch(`${url}/api/v1/traces/otlp`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf', 'x-api-key': key },
          body: request.body as Uint8Array<ArrayBuffer>,
        });
        await res.arrayBuffer();
        if (res.status === 200) break;
        if (res.status !== 503 && res.status !== 429) throw new Error(`unexpected status ${res.status}`);
        refused++;
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 100));
      }
      acked += request.spans;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, connection));
  return { acked, refused };
}

/** Spans stored, by the API's own count over a window around the pool's times. */
async function storedSpans(url: string, key: string): Promise<number> {
  const from = new Date(Date.now() - 7 * 86_400_000).toISOString();
  const to = new Date(Date.now() + 86_400_000).toISOString();
  const res = await fetch(`${url}/api/v1/traces/summary?startTime=${from}&endTime=${to}`, { headers: { 'x-api-key': key } });
  if (res.status !== 200) return 0;
  return ((await res.json()) as { spanCount: number }).spanCount;
}

function collections(pauses: readonly GcPause[], spans: number): string {
  const majors = pauses.filter((p) => p.kind.startsWith('Mark-Compact'));
  const pauseMs = pauses.reduce((sum, p) => sum + p.pauseMs, 0);
  const majorMs = majors.reduce((sum, p) => sum + p.pauseMs, 0);
  const per400k = (n: number) => ((n * 400_000) / spans).toFixed(0);
  const causes = new Map<string, number>();
  for (const p of majors) causes.set(p.reason || '?', (causes.get(p.reason || '?') ?? 0) + 1);
  const why = [...causes].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `${reason} ${n}`).join(', ');
  return `${per400k(majors.length)} major GCs per 400k spans (${majors.length}${why ? `: ${why}` : ''}), ${per400k(pauses.length - majors.length)} minor; pauses ${((pauseMs * 1000) / spans).toFixed(2)} ms per 1,000 spans (major ${((majorMs * 1000) / spans).toFixed(2)})`;
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-gc-bench-'));
  const service = await startChildService({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'error' }, { nodeArgs: ['--trace-gc', ...NODE_ARGS], keepOutput: true });
  try {
    const key = devKey(dataDir);
    const pid = service.process.pid!;
    const load = loadavg()[0]!;
    const cpu0 = cpuSeconds(pid);
    const startedAt = performance.now();
    const gcBefore = parseGcTrace(service.output()).length;
    const { acked, refused } = await sendAll(service.url, key);
    const ackedAfter = (performance.now() - startedAt) / 1000;
    const deadline = Date.now() + 600_000;
    while ((await storedSpans(service.url, key)) < acked) {
      if (Date.now() > deadline) throw new Error('spans not stored within 10 minutes');
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (performance.now() - startedAt) / 1000;
    const cpu = cpuSeconds(pid) - cpu0;
    const pauses = parseGcTrace(service.output()).slice(gcBefore);
    console.log(`service flags: --trace-gc ${NODE_ARGS.join(' ')}; ${CONCURRENCY} connections; load average ${load.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`);
    console.log(`${acked} spans acked in ${ackedAfter.toFixed(1)} s (${refused} refusals), all stored after ${seconds.toFixed(1)} s = ${(acked / seconds).toFixed(0)} spans/s`);
    console.log(`service CPU: ${((cpu * 1_000_000) / acked).toFixed(1)} ms per 1,000 spans (${(cpu / seconds).toFixed(2)} cores)`);
    console.log(`all isolates: ${collections(pauses, acked)}`);
    // Isolates by address, in the order they first collected (the main thread's is not
    // always first: a decode thread can collect before it).
    for (const isolate of new Set(pauses.map((p) => p.isolate))) {
      console.log(`  isolate ${isolate}: ${collections(pauses.filter((p) => p.isolate === isolate), acked)}`);
    }
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
