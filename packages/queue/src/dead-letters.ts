import type { Queue } from 'bullmq';
import type { SpanBatchPayload } from './ingest-queue.ts';

export interface DeadLetter {
  jobId: string;
  projectId: string;
  /** null when the payload is too malformed to count. */
  spanCount: number | null;
  receivedAt: string | null;
  failedAt: string | null;
  attempts: number;
  reason: string;
}

/**
 * Batches that exhausted their attempts. They stay in the failed set until an operator
 * retries or removes them; this lists them for one project, newest first.
 */
export async function listDeadLetters(
  queue: Queue<SpanBatchPayload>,
  opts: { projectId: string; limit: number },
): Promise<DeadLetter[]> {
  const out: DeadLetter[] = [];
  const pageSize = 200;
  for (let start = 0; out.length < opts.limit; start += pageSize) {
    const jobs = await queue.getFailed(start, start + pageSize - 1);
    if (jobs.length === 0) break;
    for (const job of jobs) {
      if (!job || job.data?.projectId !== opts.projectId) continue;
      out.push({
        jobId: String(job.id),
        projectId: job.data.projectId,
        spanCount: countSpans(job.data),
        receivedAt: Number.isFinite(job.data.receivedAtMs) ? new Date(job.data.receivedAtMs).toISOString() : null,
        failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        attempts: job.attemptsMade,
        reason: job.failedReason ?? '',
      });
      if (out.length >= opts.limit) break;
    }
  }
  return out;
}

/** Spans in a batch; a dead letter may be malformed, so nothing about its shape is assumed. */
export function countSpans(payload: SpanBatchPayload): number | null {
  const resourceSpans: unknown = payload?.export?.resourceSpans;
  if (!Array.isArray(resourceSpans)) return null;
  let n = 0;
  for (const rs of resourceSpans) {
    if (!Array.isArray(rs?.scopeSpans)) return null;
    for (const ss of rs.scopeSpans) {
      if (!Array.isArray(ss?.spans)) return null;
      n += ss.spans.length;
    }
  }
  return n;
}
