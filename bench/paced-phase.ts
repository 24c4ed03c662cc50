// One phase of offered load: every sender paced so that together they offer `rate` spans/s
// for `seconds`, while the service is probed (queue depth, written rows, RSS, event loop).
import type { AllInOne } from '@aos/server';
import type { SenderResult, Target, startSender } from './ingest-phases.ts';
import { depthSlope, probePhase, type Sample } from './service-probe.ts';

/** Requests in flight per sender while paced: headroom, so a slow ack does not lower the offered rate. */
export const PACED_CONCURRENCY = 4;
/**
 * Requests in flight per sender when unpaced: each posts its next batch as soon as the last
 * one is acked (or refused, after the sender's pause), as the exporters of issue 33's
 * saturated measurement did.
 */
export const UNPACED_CONCURRENCY = 1;
/** Spans per request of the senders' pools (agentRequest(1000, …)). */
const SPANS_PER_REQUEST = 1000;

export interface PacedFigures {
  /** Spans/s offered; Infinity when the senders were unpaced. */
  offered: number;
  seconds: number;
  /** Spans/s acked and rows/s written over the phase. */
  acked: number;
  written: number;
  refused: number;
  /** The service's count of the refusals, by reason. */
  refusedBy: Record<string, number>;
  /** The worst sender's ack p50/p99, ms. */
  p50: number;
  p99: number;
  /** Ingest queue depth (jobs) sampled each second, and its slope in jobs/s. */
  samples: Sample[];
  slope: number;
  eventLoop: { p50: number; p99: number; max: number };
}

export async function pacedPhase(
  senders: ReturnType<typeof startSender>[],
  target: Target,
  service: AllInOne,
  offered: number,
  seconds: number,
): Promise<PacedFigures> {
  const perConnection = offered / SPANS_PER_REQUEST / (senders.length * PACED_CONCURRENCY);
  return loadPhase(senders, service, offered, { ...target, concurrency: PACED_CONCURRENCY, seconds, requestsPerSecond: perConnection });
}

/** The senders unpaced for `seconds`: ingest as saturated as they can make it. */
export function unpacedPhase(senders: ReturnType<typeof startSender>[], target: Target, service: AllInOne, seconds: number): Promise<PacedFigures> {
  return loadPhase(senders, service, Infinity, { ...target, concurrency: UNPACED_CONCURRENCY, seconds });
}

/** One phase of the senders' `go` (see sender.ts), probed throughout. */
async function loadPhase(
  senders: ReturnType<typeof startSender>[],
  service: AllInOne,
  offered: number,
  go: Target & { concurrency: number; seconds: number; requestsPerSecond?: number },
): Promise<PacedFigures> {
  const { seconds } = go;
  const probe = probePhase(service);
  const results: SenderResult[] = await Promise.all(senders.map((s) => s.run(go)));
  const written = probe.written();
  const { eventLoop, refusals } = await probe.stop();
  return {
    offered,
    seconds,
    acked: results.reduce((n, r) => n + r.sentSpans, 0) / seconds,
    written: written / seconds,
    refused: results.reduce((n, r) => n + r.refused, 0),
    refusedBy: refusals,
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    samples: probe.samples,
    slope: depthSlope(probe.samples),
    eventLoop,
  };
}

/** One line of a phase's figures. */
export function describePhase(f: PacedFigures): string {
  const r = (n: number) => Math.round(n).toLocaleString('en-US');
  return (
    `offered ${Number.isFinite(f.offered) ? r(f.offered) : 'unpaced'}, acked ${r(f.acked)}, written ${r(f.written)} spans/s; ` +
    `queue ${f.samples[0]?.depth ?? 0} → ${f.samples.at(-1)?.depth ?? 0} jobs (slope ${f.slope.toFixed(2)}/s); ` +
    `ack p50 ${f.p50.toFixed(0)} / p99 ${f.p99.toFixed(0)} ms; refusals ${f.refused}${f.refused > 0 ? ` (${Object.entries(f.refusedBy).map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}; ` +
    `event loop delay p50 ${f.eventLoop.p50.toFixed(1)} / p99 ${f.eventLoop.p99.toFixed(1)} / max ${f.eventLoop.max.toFixed(0)} ms`
  );
}
