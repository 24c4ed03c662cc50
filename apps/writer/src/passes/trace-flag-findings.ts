import type { FindingSeverity, TraceFlag } from '@aos/domain';
import { raiseFinding, type Storage } from '@aos/storage';

/** The trace flags that raise a finding, with how it reads. empty_output is a data-quality signal: no finding. */
const FLAG_FINDINGS: Partial<Record<TraceFlag, { title: string; severity: FindingSeverity }>> = {
  loop: { title: 'Agent loops: a cycle of steps repeats back to back', severity: 'high' },
  duplicate_tools: { title: 'Duplicate tool calls: the same tool called with the same arguments', severity: 'medium' },
  cost_outlier: { title: 'Cost outliers: traces far above the project\'s usual cost', severity: 'medium' },
};

/**
 * Raises (or updates) one finding per project and flag for the traces that newly carry
 * the flag: `trace_flag:<flag>` is the dedupe key, the traces are the evidence, each
 * trace one occurrence. A trace recomputed after late spans with the same flag is not
 * counted again.
 */
export async function raiseTraceFlagFindings(
  storage: Storage,
  projectId: string,
  traces: ReadonlyArray<{ traceId: string; flags: readonly TraceFlag[]; details: Partial<Record<TraceFlag, string>>; previous: readonly string[] }>,
  now: number,
): Promise<number> {
  const byFlag = new Map<TraceFlag, Array<{ traceId: string; why: string }>>();
  for (const t of traces) {
    for (const flag of t.flags) {
      if (!FLAG_FINDINGS[flag] || t.previous.includes(flag)) continue;
      byFlag.set(flag, [...(byFlag.get(flag) ?? []), { traceId: t.traceId, why: t.details[flag] ?? '' }]);
    }
  }
  for (const [flag, hits] of byFlag) {
    const { title, severity } = FLAG_FINDINGS[flag]!;
    const last = hits.at(-1)!;
    await raiseFinding(storage, {
      projectId,
      dedupeKey: `trace_flag:${flag}`,
      title,
      description: `Latest: trace ${last.traceId}: ${last.why}`,
      severity,
      investigator: { kind: 'trace_flag', id: flag },
      asset: { type: 'project', id: projectId },
      evidence: hits.map((h) => h.traceId).reverse(),
      occurrences: hits.length,
      seenAtMs: now,
    });
  }
  return byFlag.size;
}
