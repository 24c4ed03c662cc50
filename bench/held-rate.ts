// The held rate (issue 21): the highest offered rate the service takes with the ingest queue
// flat, everything acked written and no exporter refused. Found by steps of paced load
// (up from a fraction of the end-to-end rate until one fails, then bisected), then held
// for BENCH_HOLD_SECONDS to show it holds, with queue depth and RSS over the hold.
import type { AllInOne } from '@aos/server';
import type { Target, startSender } from './ingest-phases.ts';
import { describePhase, pacedPhase, type PacedFigures } from './paced-phase.ts';
import { drainQueue, memoryComposition, rssThirds } from './service-probe.ts';

export interface HeldRateOptions {
  /** The end-to-end rate of the run: the search starts at `startFraction` of it. */
  endToEndRate: number;
  startFraction: number;
  stepSeconds: number;
  maxSteps: number;
  holdSeconds: number;
}

/** Offered rates are rounded to this, so the search stops instead of splitting hairs. */
const RATE_GRAIN = 500;
/** The search stops once the gap between held and failed is below this fraction of held. */
const RESOLUTION = 0.1;
/** Step sizes while the other bound is unknown. */
const STEP_UP = 1.25;
const STEP_DOWN = 0.7;
/** Held: at least this share of the offered spans acked, and of the acked ones written. */
const MIN_ACKED_SHARE = 0.95;
const MIN_WRITTEN_SHARE = 0.95;
/** Held: queue depth grows by at most this share of the offered jobs/s (and at least the noise floor). */
const MAX_SLOPE_SHARE = 0.02;
const SLOPE_FLOOR_JOBS_PER_S = 0.25;
/** A step starts with the queue empty; the writers get at most this long to empty it. */
const DRAIN_SECONDS = 60;

/** Why a phase did not hold, or null when it held. */
export function whyNotHeld(f: PacedFigures): string | null {
  if (f.refused > 0) return `${f.refused} refusals`;
  if (f.acked < MIN_ACKED_SHARE * f.offered) return `acked ${Math.round(f.acked)} of ${Math.round(f.offered)} spans/s offered`;
  if (f.written < MIN_WRITTEN_SHARE * f.acked) return `wrote ${Math.round(f.written)} of ${Math.round(f.acked)} spans/s acked`;
  const maxSlope = Math.max(SLOPE_FLOOR_JOBS_PER_S, (MAX_SLOPE_SHARE * f.offered) / 1000);
  if (f.slope > maxSlope) return `queue grew ${f.slope.toFixed(2)} jobs/s (at most ${maxSlope.toFixed(2)})`;
  return null;
}

const round = (rate: number) => Math.max(RATE_GRAIN, Math.round(rate / RATE_GRAIN) * RATE_GRAIN);

/** Bisects for the highest rate that holds over short steps; 0 when not even the lowest step held. */
export async function searchHeldRate(senders: ReturnType<typeof startSender>[], target: Target, service: AllInOne, o: HeldRateOptions): Promise<number> {
  const t0 = performance.now();
  let held = 0;
  let failed = Infinity;
  let rate = round(o.endToEndRate * o.startFraction);
  for (let step = 1; step <= o.maxSteps; step++) {
    const left = await drainQueue(service, DRAIN_SECONDS);
    const figures = await pacedPhase(senders, target, service, rate, o.stepSeconds);
    const why = whyNotHeld(figures);
    console.log(`held-rate step ${step}: ${why ? `not held (${why})` : 'held'}: ${describePhase(figures)}${left > 0 ? ` [${left} jobs left from before]` : ''}`);
    if (why) failed = Math.min(failed, rate);
    else held = Math.max(held, rate);
    const next = failed === Infinity ? round(rate * STEP_UP) : held === 0 ? round(rate * STEP_DOWN) : round((held + failed) / 2);
    if (held > 0 && failed !== Infinity && (failed - held) / held <= RESOLUTION) break;
    if (next === rate || next === held || next === failed) break;
    rate = next;
  }
  console.log(`held-rate search: ${held} spans/s held over ${o.stepSeconds} s steps (lowest failed: ${failed === Infinity ? 'none' : failed}), ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return held;
}

/** Holds `rate` for holdSeconds and prints what a fleet would see; the figures, and whether it held. */
export async function holdRate(senders: ReturnType<typeof startSender>[], target: Target, service: AllInOne, rate: number, holdSeconds: number) {
  await drainQueue(service, DRAIN_SECONDS);
  const f = await pacedPhase(senders, target, service, rate, holdSeconds);
  const why = whyNotHeld(f);
  const at = (share: number) => f.samples[Math.min(f.samples.length - 1, Math.floor(share * f.samples.length))]?.depth ?? 0;
  const rss = rssThirds(f.samples);
  console.log(`hold ${holdSeconds} s at ${rate} spans/s: ${describePhase(f)}`);
  console.log(`  queue depth start / middle / end: ${at(0)} / ${at(0.5)} / ${at(1)} jobs`);
  console.log(`  RSS mean per third ${rss.thirds.map((m) => m.toFixed(0)).join(' / ')} MiB, peak ${rss.peak.toFixed(0)} MiB`);
  console.log(`  memory at the end (MiB): ${await memoryComposition(service)}`);
  console.log(why ? `held: below ${rate} spans/s (the ${holdSeconds} s hold did not hold: ${why})` : `held: ${rate} spans/s`);
  return { figures: f, held: why === null };
}
