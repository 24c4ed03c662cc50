// Queries while ingesting (issues 21 and 33): the list page, one trace tree and the summary,
// asked once a second through the HTTP API, first idle, then while the senders offer half
// the held rate (goal: p99 at most twice idle), then while they post unpaced, as fast as
// acks come, so ingest is saturated (goal: list and summary p99 ≤ 1 s).
import type { AllInOne } from '@aos/server';
import type { Target, startSender } from './ingest-phases.ts';
import { describePhase, pacedPhase, unpacedPhase, type PacedFigures } from './paced-phase.ts';
import { drainQueue, percentile, rssThirds } from './service-probe.ts';

const HOUR = 3_600_000;
/** Issue 33's goal for the list page and the summary while ingest is saturated. */
const SATURATED_P99_GOAL_MS = 1_000;

export interface QueryCase {
  name: string;
  path: string;
}

/** Each case's answer times in ms, and how many of its answers were not 200. */
interface QueryTimes {
  ms: number[][];
  failed: number[];
}

/** The three reads an operator's screen makes, over the last hour of the project the key reads. */
async function queryCases(service: AllInOne, readKey: string): Promise<QueryCase[]> {
  const window = `startTime=${new Date(Date.now() - HOUR).toISOString()}&endTime=${new Date(Date.now() + 60_000).toISOString()}`;
  const list = await apiGet(service, readKey, `/api/v1/traces?${window}&limit=50`);
  if (list.status !== 200) throw new Error(`the list page answered ${list.status}: ${list.body}`);
  const traceId = (JSON.parse(list.body) as { data: Array<{ traceId: string }> }).data[0]?.traceId;
  if (!traceId) throw new Error('the mixed phase needs ingested traces: the list page is empty');
  return [
    { name: 'trace list page (50)', path: `/api/v1/traces?${window}&limit=50` },
    { name: 'trace with its tree', path: `/api/v1/traces/${traceId}` },
    { name: 'summary (last hour)', path: `/api/v1/traces/summary?${window}` },
  ];
}

async function apiGet(service: Pick<AllInOne, 'url'>, key: string, path: string) {
  const t0 = performance.now();
  const res = await fetch(`${service.url}${path}`, { headers: { 'x-api-key': key } });
  const body = await res.text();
  return { ms: performance.now() - t0, status: res.status, body };
}

/**
 * Asks every case once a second (or as soon as the last answer came, when slower) for
 * `seconds` seconds, or until `loadEnded` says the phase's load has. A tick slower than a
 * second leaves fewer answers, never answers taken after the load (a fixed count of ticks
 * had run slow ticks past it, counting reads made while the writer only drained its queue).
 */
export async function queryEverySecond(service: Pick<AllInOne, 'url'>, key: string, cases: QueryCase[], seconds: number, loadEnded = () => false): Promise<QueryTimes> {
  const times: QueryTimes = { ms: cases.map(() => []), failed: cases.map(() => 0) };
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end && !loadEnded()) {
    const due = performance.now() + 1000;
    for (const [i, c] of cases.entries()) {
      const answer = await apiGet(service, key, c.path);
      // A read refused or timed out under load is a result of the phase, not the bench's failure.
      if (answer.status === 200) times.ms[i]!.push(answer.ms);
      else times.failed[i]! += 1;
    }
    // No next tick fits: stop now rather than wait out the end (a timer may fire a moment early).
    if (due >= end) break;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
  }
  return times;
}

/** The queries asked while `load` runs, for as long as it runs. */
async function queriesUnder(load: Promise<PacedFigures>, service: AllInOne, key: string, cases: QueryCase[], seconds: number) {
  const busy = sessionsBusy(service);
  let ended = false;
  const [ingest, loaded] = await Promise.all([load.finally(() => (ended = true)), queryEverySecond(service, key, cases, seconds, () => ended)]);
  return { ingest, loaded, busy: `${busy()}; ${await flagsBehind(service)}` };
}

/** How far the trace flags pass trailed at its last run's end: the judging of traces keeping up with ingest, or not. */
async function flagsBehind(service: AllInOne): Promise<string> {
  const behind = (await service.metrics.traceFlagsBehind.get()).values[0]?.value;
  return behind === undefined ? 'flags pass not run yet' : `flags pass ${behind.toFixed(0)} s behind at its last run`;
}

/**
 * How much of a phase each session of the embedded engine spent running statements (a
 * server has no such clocks). A read session busy near all the time means reads waited
 * for other reads; a slow read on a session mostly free was slow by itself (CPU, data).
 */
function sessionsBusy(service: AllInOne): () => string {
  const clock = service.storage.statements;
  if (!clock) return () => 'no session clocks (ClickHouse server)';
  const t0 = performance.now();
  const [read0, background0, write0] = [clock.runMs('read'), clock.runMs('read', 'background'), clock.runMs('write')];
  return () => {
    const share = (ms: number) => `${((ms / (performance.now() - t0)) * 100).toFixed(0)} %`;
    return `engine sessions busy: read ${share(clock.runMs('read') - read0)} (background work ${share(clock.runMs('read', 'background') - background0)}), write ${share(clock.runMs('write') - write0)}`;
  };
}

function printTable(cases: QueryCase[], idle: QueryTimes, loaded: QueryTimes, goal: { header: string; of(i50: number, i99: number, l99: number): string }) {
  console.log(`| query | idle p50 / p99 ms | under load p50 / p99 ms (answers, not 200) | ${goal.header} |`);
  for (const [i, c] of cases.entries()) {
    const [idleMs, loadedMs] = [idle.ms[i]!, loaded.ms[i]!];
    const [i50, i99, l50, l99] = [percentile(idleMs, 50), percentile(idleMs, 99), percentile(loadedMs, 50), percentile(loadedMs, 99)];
    console.log(`| ${c.name} | ${i50.toFixed(1)} / ${i99.toFixed(1)} | ${l50.toFixed(1)} / ${l99.toFixed(1)} (${loadedMs.length}, ${loaded.failed[i]}) | ${goal.of(i50, i99, l99)} |`);
  }
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
  const idleBusy = sessionsBusy(service);
  const idle = await queryEverySecond(service, o.readKey, cases, o.seconds);
  console.log(`  idle: ${idleBusy()}; ${await flagsBehind(service)}`);

  const paced = await queriesUnder(pacedPhase(senders, target, service, o.offered, o.seconds), service, o.readKey, cases, o.seconds);
  console.log(`mixed phase, ${o.seconds} s of queries once a second, idle then while ingesting at ${o.offered} spans/s (half the held rate):`);
  printTable(cases, idle, paced.loaded, { header: 'p99 ratio (goal ≤ 2)', of: (_, i99, l99) => (l99 / i99).toFixed(2) });
  const rss = rssThirds(paced.ingest.samples);
  console.log(`  ${paced.busy}`);
  console.log(`  ingest meanwhile: ${describePhase(paced.ingest)}; RSS mean per third ${rss.thirds.map((m) => m.toFixed(0)).join(' / ')} MiB, peak ${rss.peak.toFixed(0)} MiB`);

  await drainQueue(service, 60);
  const saturated = await queriesUnder(unpacedPhase(senders, target, service, o.seconds), service, o.readKey, cases, o.seconds);
  console.log(`saturated mixed phase, ${o.seconds} s: the same queries while the senders post unpaced (each its next batch as the last is acked):`);
  printTable(cases, idle, saturated.loaded, { header: `p99 within ${SATURATED_P99_GOAL_MS} ms (goal: list and summary)`, of: (_, __, l99) => (l99 <= SATURATED_P99_GOAL_MS ? 'yes' : 'no') });
  console.log(`  ${saturated.busy}`);
  // Over OTLP/HTTP every refusal the senders retried is a 503 (with Retry-After).
  console.log(`  ingest meanwhile (refusals: the 503s): ${describePhase(saturated.ingest)}`);
  // The writer catches up before the next phase, so its inserts do not run into it.
  await drainQueue(service, 120);
}
