import type { Logger } from '@aos/log';
import { raiseFinding, type Storage } from '@aos/storage';

/** How often collected hits become findings: a finding is news, not a live counter. */
export const MASKING_FINDINGS_FLUSH_MS = 5_000;

/** Trace ids kept per rule between flushes; a finding keeps the newest ones as evidence. */
const MAX_EVIDENCE_PER_FLUSH = 100;

export interface MaskingFindings {
  /** Notes spans whose output a masking rule changed (called on the ingest path: no I/O). */
  record(projectId: string, hits: ReadonlyArray<{ traceId: string; rules: readonly string[] }>): void;
  /** Raises the findings collected so far. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Sensitive data in what a model or tool returned is worth investigating (the agent
 * leaks it to users), so masking hits on outputs raise findings: one per project and
 * rule (`masking:<rule>:output`), each span one occurrence, its trace the evidence.
 * Hits are collected in memory and raised every `flushMs`, so a busy ingest path pays
 * nothing per request and storage sees one update per rule per interval.
 */
export function createMaskingFindings(opts: { storage: Storage; logger: Logger; flushMs: number }): MaskingFindings {
  const pending = new Map<string, { projectId: string; rule: string; count: number; traceIds: string[] }>();

  const flush = async () => {
    const batch = [...pending.values()];
    pending.clear();
    for (const hit of batch) {
      try {
        await raiseFinding(opts.storage, {
          projectId: hit.projectId,
          dedupeKey: `masking:${hit.rule}:output`,
          title: `Sensitive data in outputs: masking rule "${hit.rule}"`,
          description: `${hit.count} span output(s) matched masking rule "${hit.rule}" and were masked at ingest; latest trace ${hit.traceIds.at(-1)}.`,
          severity: 'high',
          investigator: { kind: 'masking', id: hit.rule },
          asset: { type: 'project', id: hit.projectId },
          evidence: [...hit.traceIds].reverse(),
          occurrences: hit.count,
        });
      } catch (err) {
        // The spans are stored masked either way; only the finding is late or lost.
        opts.logger.warn('cannot raise a masking finding', { projectId: hit.projectId, rule: hit.rule, error: err });
      }
    }
  };

  const timer = setInterval(() => void flush(), opts.flushMs);
  timer.unref();

  return {
    record(projectId, hits) {
      for (const { traceId, rules } of hits) {
        for (const rule of rules) {
          const key = `${projectId}\u0000${rule}`;
          let entry = pending.get(key);
          if (!entry) pending.set(key, (entry = { projectId, rule, count: 0, traceIds: [] }));
          entry.count++;
          if (entry.traceIds.at(-1) !== traceId) entry.traceIds.push(traceId);
          if (entry.traceIds.length > MAX_EVIDENCE_PER_FLUSH) entry.traceIds.shift();
        }
      }
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
