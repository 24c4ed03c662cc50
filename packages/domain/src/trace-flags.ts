/**
 * Trace flags: rules over a finished trace's spans that point at runs worth a look.
 *
 * - duplicate_tools: the same tool called with the same arguments (compared as canonical
 *   JSON when they parse, else as text) at least `duplicateToolMin` times.
 * - loop: the trace's steps in start order (tool spans as `tool:<tool name>`, other spans by
 *   name, the root span left out) contain a cycle of 1..`loopMaxCycle` steps repeated back
 *   to back at least `loopMinRepeats` times (`a b a b a b` is the cycle `a b` three times).
 * - cost_outlier: the trace costs more than median + k·MAD of the project's recent trace
 *   costs; only judged when the project has enough recent traces (`costOutlierMinTraces`)
 *   and the trace cost anything.
 * - empty_output: an llm or agent span that did not fail ended with no output (and, for a
 *   model call, no output tokens either: an instrumentation that does not capture content
 *   still reports the tokens), or the trace's root is an llm/agent span with no output.
 *
 * The rules are pure so the writer can recompute them whenever late spans arrive.
 */

export const TRACE_FLAGS = ['duplicate_tools', 'loop', 'cost_outlier', 'empty_output'] as const;
export type TraceFlag = (typeof TRACE_FLAGS)[number];

export interface TraceFlagRules {
  /** Calls of one tool with the same arguments that make a duplicate (≥ 2). */
  duplicateToolMin: number;
  /** Back-to-back repeats of a cycle that make a loop (≥ 2). */
  loopMinRepeats: number;
  /** The longest cycle of steps looked for. */
  loopMaxCycle: number;
  /** k in median + k·MAD. */
  costOutlierK: number;
  /** Recent traces a project needs before any of its traces can be a cost outlier. */
  costOutlierMinTraces: number;
}

export const DEFAULT_TRACE_FLAG_RULES: TraceFlagRules = {
  duplicateToolMin: 2,
  loopMinRepeats: 3,
  loopMaxCycle: 5,
  costOutlierK: 5,
  costOutlierMinTraces: 20,
};

/** What the rules need of a span. */
export interface TraceStep {
  name: string;
  parentSpanId: string;
  spanType: string;
  toolName: string;
  toolArguments: string;
  output: string;
  outputTokens: number;
  status: string;
  /** Nanoseconds since the epoch, decimal. */
  startNs: string;
}

export interface CostStats {
  median: number;
  mad: number;
}

export interface TraceFlagResult {
  flags: TraceFlag[];
  /** Why each raised flag fired, keyed by flag. */
  details: Partial<Record<TraceFlag, string>>;
}

/** A MAD of zero (most traces cost the same) would make any cent above the median an outlier. */
const MIN_MAD = 1e-9;

/** Evaluates every rule on one trace. */
export function computeTraceFlags(
  spans: readonly TraceStep[],
  traceCost: number,
  costStats: CostStats | null,
  rules: TraceFlagRules,
): TraceFlagResult {
  const ordered = [...spans].sort(byStart);
  const details: TraceFlagResult['details'] = {};
  const duplicate = duplicateTools(ordered, rules.duplicateToolMin);
  if (duplicate) details.duplicate_tools = duplicate;
  const loop = findLoop(loopSteps(ordered), rules.loopMinRepeats, rules.loopMaxCycle);
  if (loop) details.loop = loop;
  const cost = costOutlier(traceCost, costStats, rules.costOutlierK);
  if (cost) details.cost_outlier = cost;
  const empty = emptyOutput(ordered);
  if (empty) details.empty_output = empty;
  return { flags: TRACE_FLAGS.filter((f) => details[f] !== undefined), details };
}

function byStart(a: TraceStep, b: TraceStep): number {
  const x = BigInt(a.startNs || '0');
  const y = BigInt(b.startNs || '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

function isToolSpan(s: TraceStep): boolean {
  return s.spanType === 'tool' || s.toolName !== '';
}

/** Arguments compared by meaning: `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` are the same call. */
export function canonicalArguments(text: string): string {
  const trimmed = text.trim();
  try {
    return JSON.stringify(sortKeys(JSON.parse(trimmed)));
  } catch {
    return trimmed;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, sortKeys(obj[k])]),
    );
  }
  return value;
}

function duplicateTools(spans: readonly TraceStep[], min: number): string | undefined {
  const counts = new Map<string, { tool: string; args: string; count: number }>();
  for (const s of spans) {
    if (!isToolSpan(s)) continue;
    const tool = s.toolName || s.name;
    const args = canonicalArguments(s.toolArguments);
    const key = `${tool}\u0000${args}`;
    const entry = counts.get(key) ?? { tool, args, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  const repeated = [...counts.values()].filter((e) => e.count >= Math.max(2, min));
  if (repeated.length === 0) return undefined;
  return repeated
    .sort((a, b) => b.count - a.count)
    .slice(0, 5)
    .map((e) => `${e.tool} called ${e.count} times with arguments ${clip(e.args || '(none)', 120)}`)
    .join('; ');
}

/** The step names the loop rule looks at: every span but the root, in start order. */
export function loopSteps(ordered: readonly TraceStep[]): string[] {
  const rootIndex = ordered.findIndex((s) => s.parentSpanId === '');
  return ordered.filter((_, i) => i !== rootIndex).map((s) => (isToolSpan(s) ? `tool:${s.toolName || s.name}` : s.name));
}

/**
 * The shortest cycle (1..maxCycle steps) repeated back to back at least minRepeats times,
 * described, or undefined. Among equal lengths the first and longest run wins.
 */
export function findLoop(steps: readonly string[], minRepeats: number, maxCycle: number): string | undefined {
  const needed = Math.max(2, minRepeats);
  for (let length = 1; length <= maxCycle; length++) {
    // A run of m positions where steps[i] === steps[i + length] is a stretch of m + length
    // steps with period `length`: the cycle repeated floor((m + length) / length) times.
    // One pass per length, so a trace of many thousand spans stays cheap.
    let best: { start: number; repeats: number } | undefined;
    let runStart = 0;
    for (let i = 0; i + length <= steps.length; i++) {
      const matches = i + length < steps.length && steps[i] === steps[i + length];
      if (matches) continue;
      const repeats = Math.floor((i - runStart + length) / length);
      if (repeats >= needed && (!best || repeats > best.repeats)) best = { start: runStart, repeats };
      runStart = i + 1;
    }
    if (best) {
      const cycle = steps.slice(best.start, best.start + length).join(' → ');
      return `${clip(cycle, 300)} repeated ${best.repeats} times from step ${best.start + 1}`;
    }
  }
  return undefined;
}

function costOutlier(cost: number, stats: CostStats | null, k: number): string | undefined {
  if (!stats || !(cost > 0)) return undefined;
  const threshold = stats.median + k * Math.max(stats.mad, MIN_MAD);
  if (!(cost > threshold)) return undefined;
  return `cost ${round(cost)} above ${round(threshold)} (median ${round(stats.median)} + ${k} × MAD ${round(stats.mad)})`;
}

const OUTPUT_KINDS = new Set(['llm', 'agent']);
const EMPTY_TEXTS = new Set(['', '""', 'null', '[]', '{}']);

/** Empty text, or an empty JSON string, null, list or object. */
export function isEmptyOutput(output: string): boolean {
  return EMPTY_TEXTS.has(output.trim());
}

/** No output recorded, and for a model call no output tokens either (content capture may be off). */
function producedNothing(s: TraceStep): boolean {
  return isEmptyOutput(s.output) && (s.spanType !== 'llm' || s.outputTokens === 0);
}

function emptyOutput(ordered: readonly TraceStep[]): string | undefined {
  const root = ordered.find((s) => s.parentSpanId === '');
  if (root && OUTPUT_KINDS.has(root.spanType) && producedNothing(root)) {
    return `the root ${root.spanType} span "${clip(root.name, 100)}" has no output`;
  }
  const empty = ordered.filter(
(s) => OUTPUT_KINDS.has(s.spanType) && s.status !== 'error' && producedNothing(s));
  const first = empty[0];
  if (!first) return undefined;
  const more = empty.length > 1 ? ` (and ${empty.length - 1} more)` : '';
  return `${first.spanType} span "${clip(first.name, 100)}" finished with no output${more}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function round(n: number): string {
  return String(Number(n.toPrecision(6)));
}
