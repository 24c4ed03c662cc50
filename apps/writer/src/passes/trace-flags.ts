import { computeTraceFlags, type CostStats, type TraceFlagRules } from '@aos/domain';
import {
  DUE_SLACK_MS,
  QUIET_TRACE_LOOKBACK_MS,
  findDueTraces,
  landedTimeAfterWrites,
  loadTraceSteps,
  newestJudgedWrite,
  projectCostStats,
  writeTraceFlags,
  type DueTrace,
  type Storage,
  type TraceFlagsRow,
} from '@aos/storage';
import { raiseTraceFlagFindings } from './trace-flag-findings.ts';

/**
 * Due traces found by one search, and about how many writes it covers: a pass far behind
 * (a first start, a writer down for a while) walks forward in steps of that many writes,
 * however they are spread in time. A pass searches again while it has time.
 */
export const TRACE_FLAGS_BATCH = 1000;
/** Traces whose spans are loaded and whose flags are written together. */
const LOAD_CHUNK = 250;
/** Wall time a pass spends judging before it leaves the rest to its next tick (other maintenance passes wait meanwhile). */
const PASS_BUDGET_MS = 10_000;
/** The trailing window of a project's cost distribution. */
export const COST_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** A project's cost statistics move slowly: reused this long instead of rescanning a week of spans every tick. */
const COST_STATS_TTL_MS = 5 * 60 * 1000;

export interface TraceFlagsPassOptions {
  rules: TraceFlagRules;
  quietMs: number;
  now?: number;
  batchSize?: number;
  budgetMs?: number;
  /** Per-project cost statistics kept between passes (see createCostStatsCache). */
  costStats?: CostStatsCache;
  /** Where this process's last pass got to (see createDueCursor); without one, a pass starts from the newest judged write. */
  cursor?: DueCursor;
  /** Told which traces were judged (they went quiet, or got late spans): evaluators that run on new traces start here. */
  onTracesJudged?: (projectId: string, traceIds: string[]) => Promise<void>;
}

export interface TraceFlagsPassResult {
  traces: number;
  flagged: number;
  projects: number;
  /** Searches for due traces this pass made. */
  searches: number;
  /** How far the pass's position trailed the quiet point when it ended, ms: 0 when it caught up. */
  behindMs: number;
}

/**
 * The landed time up to which every due trace was judged, kept between passes. Every writer
 * keeps its own: one behind another (its last tick was earlier) only searches more writes.
 */
export interface DueCursor {
  landedMs: number | null;
}

export function createDueCursor(): DueCursor {
  return { landedMs: null };
}

/**
 * Finds traces gone quiet (or written again since their flags), computes their flags,
 * writes them, and raises findings for flags a trace did not carry before. It walks the
 * writes forward in landed time from where the last pass ended, up to `quietMs` ago, for
 * at most `budgetMs`.
 */
export async function runTraceFlagsPass(storage: Storage, opts: TraceFlagsPassOptions): Promise<TraceFlagsPassResult> {
  const now = opts.now ?? Date.now();
  const started = performance.now();
  const quietBefore = now - opts.quietMs;
  const limit = opts.batchSize ?? TRACE_FLAGS_BATCH;
  const cursor = opts.cursor ?? createDueCursor();
  // Every due trace up to the newest judged write was judged: traces are judged in the
  // order of their newest write, each chunk's flags in one insert.
  cursor.landedMs ??= Math.max(await newestJudgedWrite(storage), now - QUIET_TRACE_LOOKBACK_MS);
  const judge = createJudge(storage, opts, now);
  let searches = 0;
  for (;;) {
    const from = cursor.landedMs;
    const stretchEnd = (await landedTimeAfterWrites(storage, from, limit)) ?? quietBefore;
    const to = Math.max(from, Math.min(stretchEnd, quietBefore));
    const due = await findDueTraces(storage, { fromMs: from - DUE_SLACK_MS, toMs: to, limit });
    searches += 1;
    for (let i = 0; i < due.length; i += LOAD_CHUNK) {
      const chunk = due.slice(i, i + LOAD_CHUNK);
      await judge.chunk(chunk);
      cursor.landedMs = Math.max(cursor.landedMs, chunk.at(-1)!.lastLandedMs);
    }
    // A full batch may have left traces of its stretch: the next search starts at its last.
    if (due.length < limit) cursor.landedMs = to;
    if ((due.length < limit && to >= quietBefore) || performance.now() - started > (opts.budgetMs ?? PASS_BUDGET_MS)) break;
  }
  return { ...judge.totals(), searches, behindMs: Math.max(0, quietBefore - cursor.landedMs) };
}

/** Judges chunks of due traces: loads their spans, computes and writes their flags, tells who waits for them. */
function createJudge(storage: Storage, opts: TraceFlagsPassOptions, now: number) {
  const costStats = opts.costStats ?? createCostStatsCache();
  let traces = 0;
  let flagged = 0;
  const projects = new Set<string>();
  return {
    async chunk(chunk: readonly DueTrace[]): Promise<void> {
      const byProject = new Map<string, DueTrace[]>();
      for (const t of chunk) byProject.set(t.projectId, [...(byProject.get(t.projectId) ?? []), t]);
      const rows: TraceFlagsRow[] = [];
      const findings: Array<() => Promise<unknown>> = [];
      for (const [projectId, dueTraces] of byProject) {
        projects.add(projectId);
        const ids = dueTraces.map((t) => t.traceId);
        const stats = await costStats.get(storage, projectId, opts.rules, now);
        const byId = new Map((await loadTraceSteps(storage, projectId, ids)).map((t) => [t.traceId, t]));
        const judged: Array<TraceFlagsRow & { previous: string[] }> = [];
        for (const t of dueTraces) {
          const steps = byId.get(t.traceId);
          if (!steps) {
            // No span left (retention took them): an empty row marks the write as judged,
            // so it is not found again; retention removes the row with the trace's others.
            rows.push({ projectId, traceId: t.traceId, flags: [], details: {}, spansIngestedAt: t.lastLandedMs, spansLandedAt: t.lastLandedMs, startHourMs: 0, computedAtMs: now });
            continue;
          }
          const { flags, details } = computeTraceFlags(steps.spans, steps.cost, stats, opts.rules);
          if (flags.length > 0) flagged += 1;
          judged.push({
            projectId, traceId: t.traceId, flags, details,
            spansIngestedAt: steps.spansIngestedAt, spansLandedAt: t.lastLandedMs, startHourMs: steps.startHourMs, computedAtMs: now,
            previous: t.previousFlags,
          });
        }
        traces += judged.length;
        rows.push(...judged);
        // Before the flags are written: should this fail, the traces stay due and come back
        // next tick, so their automatic evaluations are queued at least once.
        if (judged.length > 0) await opts.onTracesJudged?.(projectId, judged.map((r) => r.traceId));
        findings.push(() => raiseTraceFlagFindings(storage, projectId, judged, now));
      }
      await writeTraceFlags(storage, rows);
      for (const raise of findings) await raise();
    },
    totals: () => ({ traces, flagged, projects: projects.size }),
  };
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
