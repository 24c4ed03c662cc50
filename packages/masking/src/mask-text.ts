/**
 * Masking of one string by a list of compiled rules.
 *
 * Every rule scans the original text; overlapping matches are settled
 * deterministically (earliest start, then longest, then the earlier rule), and the
 * kept matches are replaced in one pass. Positions refer to the original text.
 */
import type { DetectorName } from './detectors.ts';
import type { CompiledPolicy, CompiledRule } from './compile.ts';
import { FIELD_EVENTS, FIELD_INPUT, FIELD_OUTPUT, FIELD_STATUS } from './compile.ts';

export interface TextMatch {
  rule: string;
  detector?: DetectorName;
  /** UTF-16 offsets in the original text, end exclusive. */
  start: number;
  end: number;
}

/** A match that was replaced, with its rule. */
export interface AppliedMatch {
  rule: CompiledRule;
  start: number;
  end: number;
}

function collect(text: string, rules: readonly CompiledRule[]): AppliedMatch[] | undefined {
  let found: AppliedMatch[] | undefined;
  for (const rule of rules) {
    for (const scanner of rule.scanners) {
      if (text.length < scanner.minLength || !scanner.mayContain(text)) continue;
      const regex = scanner.regex;
      regex.lastIndex = 0;
      for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
        // An empty match masks nothing; step past it so the scan ends.
        if (m[0].length === 0) {
          regex.lastIndex++;
          continue;
        }
        const range = scanner.check === undefined ? ([m.index, m.index + m[0].length] as const) : scanner.check(m);
        if (range === null || range[1] <= range[0]) continue;
        (found ??= []).push({ rule, start: range[0], end: range[1] });
      }
    }
  }
  return found;
}

function byPosition(a: AppliedMatch, b: AppliedMatch): number {
  return a.start - b.start || b.end - a.end || a.rule.index - b.rule.index;
}

/** Sorted, non-overlapping subset of the matches (greedy over the sorted order). */
function settle(matches: AppliedMatch[]): AppliedMatch[] {
  if (matches.length === 1) return matches;
  matches.sort(byPosition);
  const kept: AppliedMatch[] = [];
  let end = -1;
  for (const m of matches) {
    if (m.start < end) continue;
    kept.push(m);
    end = m.end;
  }
  return kept;
}

function replaceAll(text: string, kept: readonly AppliedMatch[]): string {
  let out = '';
  let at = 0;
  for (const m of kept) {
    out += text.slice(at, m.start) + m.rule.replace(text.slice(m.start, m.end));
    at = m.end;
  }
  return out + text.slice(at);
}

/**
 * The hot-path form: the masked text and the rules applied (in text order), or
 * undefined when nothing matched (no allocation then).
 */
export function maskWithRules(text: string, rules: readonly CompiledRule[]): { text: string; applied: AppliedMatch[] } | undefined {
  const found = collect(text, rules);
  if (found === undefined) return undefined;
  const kept = settle(found);
  return { text: replaceAll(text, kept), applied: kept };
}

/** Which stored field a text stands for, or an attribute key. */
export type TextField = 'input' | 'output' | 'events' | 'statusMessage' | { attribute: string };

const FIELD_BITS = { input: FIELD_INPUT, output: FIELD_OUTPUT, events: FIELD_EVENTS, statusMessage: FIELD_STATUS } as const;

/** The rules of a policy that apply to a field; all of them when no field is given. */
export function rulesForField(policy: CompiledPolicy, field?: TextField): CompiledRule[] {
  if (field === undefined) return [...policy.rules];
  if (typeof field === 'object') return policy.rules.filter((r) => r.attributeKeys?.test(field.attribute) === true);
  const bit = FIELD_BITS[field];
  return policy.rules.filter((r) => (r.fieldMask & bit) !== 0);
}

/**
 * Masks one text with a policy (e.g. for POST /trace-masking/test): the masked text
 * and the matches that were replaced, with positions in the original text.
 */
export function maskText(policy: CompiledPolicy, text: string, field?: TextField): { text: string; matches: TextMatch[] } {
  const result = maskWithRules(text, rulesForField(policy, field));
  if (result === undefined) return { text, matches: [] };
  return {
    text: result.text,
    matches: result.applied.map((m) => {
      const match: TextMatch = { rule: m.rule.name, start: m.start, end: m.end };
      if (m.rule.detector !== undefined) match.detector = m.rule.detector;
      return match;
    }),
  };
}
