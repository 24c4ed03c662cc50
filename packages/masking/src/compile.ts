/**
 * A normalized policy turned into what the hot path runs: per rule private regexes
 * with their pre-checks and validators, a replacement function, a field bit mask and one regex
 * for its attribute-key globs.
 */
import { createHmac } from 'node:crypto';
import { DETECTORS, type DetectorName, type Scanner } from './detectors.ts';
import type { MaskingPolicy, MaskingRule, Replacement, RuleFields } from './policy.ts';

/** Field bits: a value belongs to one or more fields; a rule covers a set of them. */
export const FIELD_INPUT = 1;
export const FIELD_OUTPUT = 2;
export const FIELD_EVENTS = 4;
export const FIELD_STATUS = 8;

export interface CompiledRule {
  name: string;
  /** Position in the policy: breaks ties between equal matches (earlier rule wins). */
  index: number;
  detector: DetectorName | undefined;
  /** Each with a private regex: a global regex carries lastIndex state. */
  scanners: readonly Scanner[];
  replace: (matched: string) => string;
  fieldMask: number;
  /** Matches the attribute keys the rule's globs select; undefined when it has none. */
  attributeKeys: RegExp | undefined;
}

export interface CompiledPolicy {
  policy: MaskingPolicy;
  rules: readonly CompiledRule[];
}

export interface CompileOptions {
  /** HMAC-SHA256 key of the hash replacement style, e.g. a per-project secret. Never stored with the data. */
  hashKey: string | Uint8Array;
}

/** Characters of the hash shown: 40 bits, enough to join on, too few to be a useful oracle. */
const HASH_HEX_CHARS = 10;

const always = (): boolean => true;

/** `employee-id` → `EMPLOYEE_ID`, the tag of a custom rule. */
function ruleTag(name: string): string {
  return name.toUpperCase().replaceAll('-', '_');
}

/** `user.*` → /^user\..*$/ ; several globs become one alternation. */
function globsToRegex(globs: readonly string[]): RegExp | undefined {
  if (globs.length === 0) return undefined;
  const parts = globs.map((glob) =>
    glob.replace(/[.+^${}()|[\]\\*?]/g, (c) => (c === '*' ? '[^]*' : c === '?' ? '[^]' : `\\${c}`)),
  );
  return new RegExp(`^(?:${parts.join('|')})$`);
}

/** Keeps the last n letters or digits, never more than half of them; the rest become `*`. */
function keepLast(text: string, n: number): string {
  let alnum = 0;
  for (let i = 0; i < text.length; i++) if (isAlnum(text.charCodeAt(i))) alnum++;
  let toMask = alnum - Math.min(n, Math.floor(alnum / 2));
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A JSON escape (\n, \") stays whole so masked JSON text stays valid JSON.
    if (c === 92 && i + 1 < text.length) {
      out += text[i]! + text[i + 1]!;
      if (isAlnum(text.charCodeAt(i + 1)) && toMask > 0) toMask--;
      i++;
    } else if (isAlnum(c) && toMask > 0) {
      out += '*';
      toMask--;
    } else {
      out += text[i]!;
    }
  }
  return out;
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function replacer(replacement: Replacement, tag: string, hashKey: string | Uint8Array): (matched: string) => string {
  switch (replacement.style) {
    case 'fixed': {
      const text = replacement.text;
      return () => text;
    }
    case 'type_tag': {
      const text = `[${tag}]`;
      return () => text;
    }
    case 'keep_last': {
      const n = replacement.n;
      return (matched) => keepLast(matched, n);
    }
    case 'hash':
      return (matched) => `[${tag}:${createHmac('sha256', hashKey).update(matched).digest('hex').slice(0, HASH_HEX_CHARS)}]`;
  }
}

function fieldMask(fields: RuleFields): number {
  return (
    (fields.input ? FIELD_INPUT : 0) |
    (fields.output ? FIELD_OUTPUT : 0) |
    (fields.events ? FIELD_EVENTS : 0) |
    (fields.statusMessage ? FIELD_STATUS : 0)
  );
}

function compileRule(rule: MaskingRule, index: number, options: CompileOptions): CompiledRule {
  const common = {
    name: rule.name,
    index,
    fieldMask: fieldMask(rule.fields),
    attributeKeys: globsToRegex(rule.fields.attributes),
  };
  if (rule.detector !== undefined) {
    const detector = DETECTORS[rule.detector];
    return {
      ...common,
      detector: detector.name,
      scanners: [detector, ...(detector.more ?? [])].map((scanner) => ({
        regex: new RegExp(scanner.regex.source, scanner.regex.flags),
        minLength: scanner.minLength,
        mayContain: scanner.mayContain,
        check: scanner.check,
      })),
      replace: replacer(rule.replacement, detector.tag, options.hashKey),
    };
  }
  return {
    ...common,
    detector: undefined,
    scanners: [{ regex: new RegExp(rule.pattern!, `${rule.flags ?? ''}g`), minLength: 1, mayContain: always }],
    replace: replacer(rule.replacement, ruleTag(rule.name), options.hashKey),
  };
}

/** Compiles a policy returned by parsePolicy (or read back from storage). */
export function compilePolicy(policy: MaskingPolicy, options: CompileOptions): CompiledPolicy {
  return { policy, rules: policy.rules.map((rule, i) => compileRule(rule, i, options)) };
}

/**
 * The hash key of one project, derived from a service-wide secret: equal values hash
 * alike within a project (joinable) but not across projects.
 */
export function maskingHashKey(secret: string, projectId: string): Uint8Array {
  return createHmac('sha256', secret).update(`aos-masking-hash-key:${projectId}`).digest();
}
