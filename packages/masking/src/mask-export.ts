/**
 * Masking of a decoded OTLP export, in place, before anything is queued or stored.
 *
 * What each value counts as:
 *  - span attributes: `attributes` globs by key; keys the conventions read as the
 *    span's input or output (span-fields.ts) also count as `input` / `output`;
 *  - event attributes: `events`, plus `input` / `output` for GenAI message events
 *    and message keys, since the normalizer may build input/output from them;
 *  - the span's status message: `statusMessage`;
 *  - resource and link attributes: `attributes` globs by key (they are stored too).
 * Strings are masked wherever they sit inside arrays and key-value lists; numbers,
 * booleans and null are never touched. Span names, ids and timestamps are not masked.
 */
import type { AttributeValue, Attributes, OtlpSpan, OtlpTraceExport } from '@aos/otlp';
import { FIELD_OUTPUT, FIELD_STATUS, type CompiledPolicy, type CompiledRule } from './compile.ts';
import { maskWithRules } from './mask-text.ts';
import { attributeKeyFields, eventAttributeFields } from './span-fields.ts';

export interface SpanMasking {
  span: OtlpSpan;
  /** The span's index in export order (over all resources and scopes), 0-based. */
  position: number;
  /** Names of the rules that fired on the span (its resource's included), sorted. */
  rules: string[];
  /** Names of the rules that fired on a value counted as the span's output, sorted. */
  outputRules: string[];
  /** Replacements made in the span's own values. */
  matches: number;
}

export interface ExportMasking {
  /** One entry per span where a rule fired, in export order. */
  spans: SpanMasking[];
  /** Replacements per rule name over the whole export (rules that fired only). */
  ruleMatches: Record<string, number>;
  /** Replacements over the whole export. */
  matches: number;
}

const NO_RULES: readonly CompiledRule[] = [];
/** Key → rules caches are dropped past this size, so unbounded key sets cannot grow memory. */
const MAX_CACHED_KEYS = 10_000;

/** Rule lists per attribute key, memoized per compiled policy (keys repeat across spans). */
class RuleLookup {
  private readonly spanKeys = new Map<string, readonly CompiledRule[]>();
  private readonly otherKeys = new Map<string, readonly CompiledRule[]>();
  private readonly eventKeys = new Map<string, readonly CompiledRule[]>();
  private readonly byFields = new Map<number, readonly CompiledRule[]>();

  constructor(private readonly rules: readonly CompiledRule[]) {}

  private select(fields: number, key: string | undefined): readonly CompiledRule[] {
    const list = this.rules.filter((r) => (r.fieldMask & fields) !== 0 || (key !== undefined && r.attributeKeys?.test(key) === true));
    return list.length === 0 ? NO_RULES : list;
  }

  private cached(cache: Map<string, readonly CompiledRule[]>, key: string, make: () => readonly CompiledRule[]): readonly CompiledRule[] {
    let rules = cache.get(key);
    if (rules === undefined) {
      if (cache.size >= MAX_CACHED_KEYS) cache.clear();
      rules = make();
      cache.set(key, rules);
    }
    return rules;
  }

  spanAttribute(key: string): readonly CompiledRule[] {
    return this.cached(this.spanKeys, key, () => this.select(attributeKeyFields(key), key));
  }

  /** Resource and link attributes: globs only. */
  otherAttribute(key: string): readonly CompiledRule[] {
    return this.cached(this.otherKeys, key, () => this.select(0, key));
  }

  eventAttribute(eventName: string, key: string): readonly CompiledRule[] {
    return this.cached(this.eventKeys, `${eventName}\u0000${key}`, () => this.select(eventAttributeFields(eventName, key), undefined));
  }

  fields(bits: number): readonly CompiledRule[] {
    let rules = this.byFields.get(bits);
    if (rules === undefined) this.byFields.set(bits, (rules = this.select(bits, undefined)));
    return rules;
  }
}

const lookups = new WeakMap<CompiledPolicy, RuleLookup>();
function lookupFor(policy: CompiledPolicy): RuleLookup {
  let lookup = lookups.get(policy);
  if (lookup === undefined) lookups.set(policy, (lookup = new RuleLookup(policy.rules)));
  return lookup;
}

/** Rule firings of one span (or one resource), reset between spans. */
class Tally {
  readonly fired: Uint8Array;
  readonly firedOnOutput: Uint8Array;
  matches = 0;

  constructor(
    ruleCount: number,
    private readonly totals: number[],
  ) {
    this.fired = new Uint8Array(ruleCount);
    this.firedOnOutput = new Uint8Array(ruleCount);
  }

  record(rule: CompiledRule, fields: number): void {
    this.fired[rule.index] = 1;
    if ((fields & FIELD_OUTPUT) !== 0) this.firedOnOutput[rule.index] = 1;
    this.totals[rule.index]!++;
    this.matches++;
  }

  reset(): void {
    if (this.matches === 0) return;
    this.fired.fill(0);
    this.firedOnOutput.fill(0);
    this.matches = 0;
  }
}

function maskString(text: string, rules: readonly CompiledRule[], fields: number, tally: Tally): string {
  const result = maskWithRules(text, rules);
  if (result === undefined) return text;
  for (const m of result.applied) tally.record(m.rule, fields);
  return result.text;
}

/** Masks strings inside a value; arrays and objects are changed in place. */
function maskValue(value: AttributeValue, rules: readonly CompiledRule[], fields: number, tally: Tally): AttributeValue {
  if (typeof value === 'string') return maskString(value, rules, fields, tally);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = maskValue(value[i]!, rules, fields, tally);
  } else {
    for (const key in value) value[key] = maskValue(value[key]!, rules, fields, tally);
  }
  return value;
}

/** Only strings and containers can hold text; skipping the rest early keeps numbers cheap. */
function maskable(value: AttributeValue): boolean {
  return typeof value === 'string' || (value !== null && typeof value === 'object');
}

function maskAttributes(attributes: Attributes, rulesFor: (key: string) => readonly CompiledRule[], fieldsOf: (key: string) => number, tally: Tally): void {
  for (const key in attributes) {
    const value = attributes[key]!;
    if (!maskable(value)) continue;
    const rules = rulesFor(key);
    if (rules.length > 0) attributes[key] = maskValue(value, rules, fieldsOf(key), tally);
  }
}

function namesOf(rules: readonly CompiledRule[], flags: Uint8Array, also?: Uint8Array): string[] {
  const names: string[] = [];
  for (const rule of rules) if (flags[rule.index] === 1 || also?.[rule.index] === 1) names.push(rule.name);
  return names.sort();
}

/**
 * Masks an export in place with a compiled policy and reports, per span, which rules
 * fired. A policy without rules returns at once.
 */
export function maskExport(batch: OtlpTraceExport, policy: CompiledPolicy): ExportMasking {
  const result: ExportMasking = { spans: [], ruleMatches: {}, matches: 0 };
  const rules = policy.rules;
  if (rules.length === 0) return result;
  const lookup = lookupFor(policy);
  const totals = new Array<number>(rules.length).fill(0);
  const spanTally = new Tally(rules.length, totals);
  const resourceTally = new Tally(rules.length, totals);
  const otherAttribute = (key: string) => lookup.otherAttribute(key);
  const spanAttribute = (key: string) => lookup.spanAttribute(key);
  const noFields = () => 0;
  const statusRules = lookup.fields(FIELD_STATUS);
  let position = -1;

  for (const resourceSpans of batch.resourceSpans) {
    resourceTally.reset();
    maskAttributes(resourceSpans.resource.attributes, otherAttribute, noFields, resourceTally);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        position++;
        spanTally.reset();
        maskAttributes(span.attributes, spanAttribute, attributeKeyFields, spanTally);
        for (const event of span.events) {
          const name = event.name;
          maskAttributes(event.attributes, (key) => lookup.eventAttribute(name, key), (key) => eventAttributeFields(name, key), spanTally);
        }
        for (const link of span.links) maskAttributes(link.attributes, otherAttribute, noFields, spanTally);
        if (span.status.message !== '' && statusRules.length > 0) {
          span.status.message = maskString(span.status.message, statusRules, FIELD_STATUS, spanTally);
        }
        if (spanTally.matches > 0 || resourceTally.matches > 0) {
          result.spans.push({
            span,
            position,
            rules: namesOf(rules, spanTally.fired, resourceTally.fired),
            outputRules: namesOf(rules, spanTally.firedOnOutput),
            matches: spanTally.matches,
          });
        }
      }
    }
  }
  for (const rule of rules) {
    const count = totals[rule.index]!;
    if (count > 0) result.ruleMatches[rule.name] = count;
    result.matches += count;
  }
  return result;
}
