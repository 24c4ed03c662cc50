import { computeTraceFlags, type CostStats, type TraceFlagRules } from '@aos/domain';
import {
  findQuietTraces,
  flagsOfTraces,
  loadTraceSteps,
  projectCostStats,
  writeTraceFlags,
  type Storage,
  type TraceFlagsRow,
} from '@aos/storage';
import { raiseTraceFlagFindings } from './trace-flag-findings.ts';

/** Quiet traces judged per pass; a backlog is worked off over the following ticks. */
export const TRACE_FLAGS_BATCH = 500;
/** Traces whose spans are loaded in one query. */
const LOAD_CHUNK = 100;
/** The trailing window of a project's cost distribution. */
export const COST_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** A project's cost statistics move slowly: reused this long instead of rescanning a week of spans every tick. */
const COST_STATS_TTL_MS = 5 * 60 * 1000;

export interface TraceFlagsPassOptions {
  rules: TraceFlagRules;
  quietMs: number;
  now?: number;
  batchSize?: number;
  /** Per-project cost statistics kept between passes (see createCostStatsCache). */
  costStats?: CostStatsCache;
  /** Told which traces were judged (they went quiet, or got late spans): evaluators that run on new traces start here. */
  onTracesJudged?: (projectId: string, traceIds: string[]) => Promise<void>;
}

export interface TraceFlagsPassResult {
  traces: number;
  flagged: number;
  projects: number;
}

/**
 * Finds traces gone quiet (or with late spans since their flags), computes their flags,
 * writes them, and raises findings for flags a trace did not carry before.
 */
export async function runTraceFlagsPass(storage: Storage, opts: TraceFlagsPassOptions): Promise<TraceFlagsPassResult> {
  const now = opts.now ?? Date.now();
  const costStats = opts.costStats ?? createCostStatsCache();
  const quiet = await findQuietTraces(storage, { quietBeforeMs: now - opts.quietMs, limit: opts.batchSize ?? TRACE_FLAGS_BATCH });
  const byProject = new Map<string, string[]>();
  for (const t of quiet) byProject.set(t.projectId, [...(byProject.get(t.projectId) ?? []), t.traceId]);
  let flagged = 0;
  for (const [projectId, traceIds] of byProject) {
    const stats = await costStats.get(storage, projectId, opts.rules, now);
    for (let i = 0; i < traceIds.length; i += LOAD_CHUNK) {
      const chunk = traceIds.slice(i, i + LOAD_CHUNK);
      const [traces, previous] = await Promise.all([loadTraceSteps(storage, projectId, chunk), flagsOfTraces(storage, projectId, chunk)]);
      const rows: TraceFlagsRow[] = traces.map((t) => {
        const { flags, details } = computeTraceFlags(t.spans, t.cost, stats, opts.rules);
        if (flags.length > 0) flagged += 1;
        return { projectId, traceId: t.traceId, flags, details, spansIngestedAt: t.spansIngestedAt, startHourMs: t.startHourMs, computedAtMs: now };
      });
      // Before the flags are written: should this fail, the traces stay due and come back
      // next tick, so their automatic evaluations are queued at least once.
      await opts.onTracesJudged?.(projectId, traces.map((t) => t.traceId));
      await writeTraceFlags(storage, rows);
      await raiseTraceFlagFindings(storage, projectId, rows.map((r) => ({ ...r, previous: previous.get(r.traceId) ?? [] })), now);
    }
  }
  return { traces: quiet.length, flagged, projects: byProject.size };
}

export interface CostStatsCache {
  get(storage: Storage, projectId: string, rules: TraceFlagRules, now: number): Promise<CostStats | null>;
}

/** Cost statistics per project, refreshed after COST_STATS_TTL_MS. */
export function createCostStatsCache(ttlMs = COST_STATS_TTL_MS): CostStatsCache {
  const cache = new Map<string, { stats: CostStats | null; at: number }>();
  return {
    async get(storage, projectId, rules, now) {
      const hit = cache.get(projectId);
      // A project short of traces may reach the minimum any minute: asked again sooner.
      if (hit && now - hit.at < (hit.stats ? ttlMs : ttlMs / 10)) return hit.stats;
      const stats = await projectCostStats(storage, projectId, { sinceMs: now - COST_WINDOW_MS, minTraces: rules.costOutlierMinTraces });
      if (cache.size > 10_000) cache.clear();
      cache.set(projectId, { stats, at: now });
      return stats;
    },
  };
}
