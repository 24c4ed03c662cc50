// Queries while ingesting (issue 21): the list page, one trace tree and the summary, asked
// once a second through the HTTP API, first idle and then while the senders offer half the
// held rate; their p50/p99 side by side (goal: p99 under load at most twice idle).
import type { AllInOne } from '@aos/server';
import type { Target, startSender } from './ingest-phases.ts';
import { describePhase, pacedPhase } from './paced-phase.ts';
import { drainQueue, percentile, rssThirds } from './service-probe.ts';

const HOUR = 3_600_000;

interface QueryCase {
  name: string;
  path: string;
}

/** The three reads an operator's screen makes, over the last hour of the project the key reads. */
async function queryCases(service: AllInOne, readKey: string): Promise<QueryCase[]> {
  const window = `startTime=${new Date(Date.now() - HOUR).toISOString()}&endTime=${new Date(Date.now() + 60_000).toISOString()}`;
  const list = await apiGet(service, readKey, `/api/v1/traces?${window}&limit=50`);
  const traceId = (JSON.parse(list.body) as { data: Array<{ traceId: string }> }).data[0]?.traceId;
  if (!traceId) throw new Error('the mixed phase needs ingested traces: the list page is empty');
  return [
    { name: 'trace list page (50)', path: `/api/v1/traces?${window}&limit=50` },
    { name: 'trace with its tree', path: `/api/v1/traces/${traceId}` },
    { name: 'summary (last hour)', path: `/api/v1/traces/summary?${window}` },
  ];
}

async function apiGet(service: AllInOne, key: string, path: string) {
  const t0 = performance.now();
  const res = await fetch(`${service.url}${path}`, { headers: { 'x-api-key': key } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body}`);
  return { ms: performance.now() - t0, body };
}

/** Asks every case once a second, `ticks` times; each case's latencies in ms. */
async function queryEverySecond(service: AllInOne, key: string, cases: QueryCase[], ticks: number): Promise<number[][]> {
  const times = cases.map(() => [] as number[]);
  for (let tick = 0; tick < ticks; tick++) {
    const due = performance.now() + 1000;
    for (const [i, c] of cases.entries()) times[i]!.push((await apiGet(service, key, c.path)).ms);
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
  }
  return times;
}

export async function mixedPhase(
  senders: ReturnType<typeof startSender>[],
  target: Target,
  service: AllInOne,
  o: { readKey: string; offered: number; seconds: number },
): Promise<void> {
  const cases = await queryCases(service, o.readKey);
  await queryEverySecond(service, o.readKey, cases, 1); // caches warm (the key, project settings)
  await drainQueue(service, 60);
  const idle = await queryEverySecond(service, o.readKey, cases, o.seconds);
  const [ingest, loaded] = await Promise.all([
    pacedPhase(senders, target, service, o.offered, o.seconds),
    queryEverySecond(service, o.readKey, cases, o.seconds),
  ]);
  console.log(`mixed phase, ${o.seconds} s of queries once a second, idle then while ingesting at ${o.offered} spans/s (half the held rate):`);
  console.log('| query | idle p50 / p99 ms | under load p50 / p99 ms | p99 ratio (goal ≤ 2) |');
  for (const [i, c] of cases.entries()) {
    const [i50, i99, l50, l99] = [percentile(idle[i]!, 50), percentile(idle[i]!, 99), percentile(loaded[i]!, 50), percentile(loaded[i]!, 99)];
    console.log(`| ${c.name} | ${i50.toFixed(1)} / ${i99.toFixed(1)} | ${l50.toFixed(1)} / ${l99.toFixed(1)} | ${(l99 / i99).toFixed(2)} |`);
  }
  const rss = rssThirds(ingest.samples);
  console.log(`  ingest meanwhile: ${describePhase(ingest)}; RSS mean per third ${rss.thirds.map((m) => m.toFixed(0)).join(' / ')} MiB, peak ${rss.peak.toFixed(0)} MiB`);
}
