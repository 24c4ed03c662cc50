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
 * - empty_output: an llm or agent span produced nothing (emptyOutput below). Never on a
 *   trace whose root failed, nor for a span that failed or runs inside one that failed:
 *   the error is what happened, and the missing output only its consequence.
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
  spanId: string;
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

/** Characters a JSON text can start with (after blanks). */
const JSON_START = /^[{["\-0-9tfn]/;

/** Arguments compared by meaning: `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` are the same call. */
export function canonicalArguments(text: string): string {
  const trimmed = text.trim();
  // What cannot be JSON (no arguments at all, most often) is compared as it is, without
  // the parse failing: a thrown SyntaxError costs ~10 µs, most of judging a small trace.
  if (!JSON_START.test(trimmed)) return trimmed;
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

/**
 * empty_output: the llm and agent spans that produced nothing, described. A span produced
 * something when
 * - its output text is not empty (a tool call the model asked for is output: the
 *   conventions write it into the output text), or
 * - something below it did: a tool was called (a tool span), or an llm or agent span
 *   answered (output text, or for a model call output tokens). An agent is judged by what
 *   it and the spans it ran produced, never by the output tokens it reports itself
 *   (wrappers report their model calls' sum; OpenInference AGENT spans and agent SDKs often
 *   record neither output nor tokens on the agent span, and content capture may be off), or
 * - it is a model call that reports output tokens (content capture may be off).
 * Spans that failed, or run inside a span that failed, are not judged, and a trace whose
 * root failed has no empty_output at all.
 */
function emptyOutput(ordered: readonly TraceStep[]): string | undefined {
  const root = ordered.find((s) => s.parentSpanId === '');
  if (root?.status === 'error') return undefined;
  const byId = new Map(ordered.map((s) => [s.spanId, s]));
  const parentOf = (s: TraceStep) => (s.parentSpanId === '' ? undefined : byId.get(s.parentSpanId));
  const producedBelow = spansWithOutputBelow(ordered, parentOf);
  const inFailure = spansInFailure(ordered, parentOf);
  const producedNothing = (s: TraceStep) =>
    isEmptyOutput(s.output) && !producedBelow.has(s) && !(s.spanType === 'llm' && s.outputTokens > 0);
  const empty = ordered.filter((s) => OUTPUT_KINDS.has(s.spanType) && !inFailure.has(s) && producedNothing(s));
  if (root && empty.includes(root)) return `the root ${root.spanType} span "${clip(root.name, 100)}" has no output`;
  const first = empty[0];
  if (!first) return undefined;
  const more = empty.length > 1 ? ` (and ${empty.length - 1} more)` : '';
  return `${first.spanType} span "${clip(first.name, 100)}" finished with no output${more}`;
}

/** Evidence that a span's run produced something: a tool call, or an answer of an llm or agent span. */
function isOutputEvidence(s: TraceStep): boolean {
  return isToolSpan(s) || (OUTPUT_KINDS.has(s.spanType) && !isEmptyOutput(s.output)) || (s.spanType === 'llm' && s.outputTokens > 0);
}

/** The spans with output evidence among the spans below them (each ancestor walked once). */
function spansWithOutputBelow(spans: readonly TraceStep[], parentOf: (s: TraceStep) => TraceStep | undefined): Set<TraceStep> {
  const marked = new Set<TraceStep>();
  for (const s of spans) {
    if (!isOutputEvidence(s)) continue;
    // An ancestor already marked has its own ancestors marked; this also ends a cycle of parents.
    for (let up = parentOf(s); up && !marked.has(up); up = parentOf(up)) marked.add(up);
  }
  return marked;
}

/** The spans that failed or have a failed ancestor. */
function spansInFailure(spans: readonly TraceStep[], parentOf: (s: TraceStep) => TraceStep | undefined): Set<TraceStep> {
  const known = new Map<TraceStep, boolean>();
  for (const s of spans) {
    const chain: TraceStep[] = [];
    const seen = new Set<TraceStep>();
    let failed = false;
    for (let at: TraceStep | undefined = s; at && !seen.has(at); at = parentOf(at)) {
      const answer = known.get(at);
      if (answer !== undefined) {
        failed = answer;
        break;
      }
      seen.add(at);
      chain.push(at);
      if (at.status === 'error') {
        failed = true;
        break;
      }
    }
    for (const at of chain) known.set(at, failed);
  }
  return new Set([...known].filter(([, failed]) => failed).map(([s]) => s));
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function round(n: number): string {
  return String(Number(n.toPrecision(6)));
}
