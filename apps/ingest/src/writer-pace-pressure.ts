import type { WriterPace } from '@aos/queue';
import type { PressureSource, QueueBacklog } from './backpressure.ts';

/** Seconds of the writers' commits their recent pace is taken over. */
export const PACE_WINDOW_SECONDS = 10;

/**
 * Fewer queued jobs than this are never refused for the writers' pace. A writer that was
 * idle or has just started has no recent pace (or one from a trickle), and a burst into it
 * must not be refused before its first insert lands (about a second); a writer that stores
 * nothing at all (storage down, no writer running) is refused after these, not after
 * INGEST_MAX_QUEUE_DEPTH.
 */
export const PACE_FLOOR_JOBS = 16;

/** The ingest queue's backlog beside what the writers stored recently. */
export interface PaceBacklog {
  queuedJobs: number;
  pace: WriterPace;
}

/**
 * Seconds the writers would take to store the backlog at their recent pace: the queued jobs
 * times the recent mean span rows a job, over the recent span rows a second (which comes
 * to queued jobs over jobs stored a second). Infinity when jobs wait and none was stored.
 */
export function backlogSeconds({ queuedJobs, pace }: PaceBacklog): number {
  if (queuedJobs === 0) return 0;
  if (pace.jobs === 0) return Infinity;
  return (queuedJobs * pace.seconds) / pace.jobs;
}

/** Why exports should wait for the writers' pace, or undefined: the backlog past `maxSeconds` of it, and past the floor. */
export function paceRefusal(backlog: PaceBacklog, maxSeconds: number): string | undefined {
  if (backlog.queuedJobs < PACE_FLOOR_JOBS) return undefined;
  const seconds = backlogSeconds(backlog);
  if (seconds <= maxSeconds) return undefined;
  const { queuedJobs, pace } = backlog;
  if (pace.jobs === 0) return `the writers stored nothing in the last ${PACE_WINDOW_SECONDS} s and ${queuedJobs} batches wait; retry later`;
  const queuedSpans = Math.round((queuedJobs * pace.rows) / pace.jobs);
  const spansPerSecond = Math.round(pace.rows / pace.seconds);
  return `the ingest queue holds ${seconds.toFixed(1)} s of what the writers store (about ${queuedSpans} spans at ${spansPerSecond} spans/s; the limit is ${maxSeconds} s); retry later`;
}

/**
 * The span queue's backlog past `maxSeconds` of the writers' recent pace (INGEST_MAX_QUEUE_SECONDS).
 * Ingest can decode and queue spans far faster than the writers store them; past the queue's
 * depth limit it would hold minutes of backlog while its decoding took the CPU the storage
 * engine and reads need. Holding the backlog to a few seconds of the writers' pace admits
 * what they store and refuses the rest cheaply, before a body is read. The pace comes from
 * Redis (queue/writer-pace.ts), so it counts every writer process; `backlog` must be measured
 * with it (queueBacklog over PACE_WINDOW_SECONDS).
 */
export function writerPacePressure(backlog: () => Promise<QueueBacklog>, maxSeconds: number): PressureSource {
  return {
    async refusal() {
      const { waitingJobs, activeJobs, pace } = await backlog();
      if (!pace) throw new Error('writerPacePressure needs a backlog measured with the writers\' pace');
      return paceRefusal({ queuedJobs: waitingJobs + activeJobs, pace }, maxSeconds);
    },
  };
}
