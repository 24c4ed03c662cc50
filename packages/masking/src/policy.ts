/**
 * The masking policy as the API takes and returns it: a valibot schema, defaults,
 * and `parsePolicy`, which refuses an invalid policy with every problem and its path.
 */
import * as v from 'valibot';
import { DETECTOR_NAMES, type DetectorName } from './detectors.ts';
import { ANALYSIS_TIMEOUT_MS, patternProblem } from './regex-safety.ts';

export const MAX_RULES = 50;
export const MAX_PATTERN_LENGTH = 500;
export const MAX_ATTRIBUTE_GLOBS = 50;
export const MAX_FIXED_TEXT_LENGTH = 100;
/** Backtracking analysis time for a whole policy, so one request cannot hold a thread for long. */
const POLICY_ANALYSIS_BUDGET_MS = 1_000;

const RuleName = v.pipe(
  v.string(),
  v.regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1 to 64 lowercase letters, digits, "-" or "_", starting with a letter or digit'),
);

// Masked values often sit inside JSON text (input.value, message lists): a quote,
// backslash or control character in the replacement would break that JSON.
const FixedText = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(MAX_FIXED_TEXT_LENGTH, `must be at most ${MAX_FIXED_TEXT_LENGTH} characters`),
  v.regex(/^[^"\\\u0000-\u001f\u007f]*$/, 'must not contain quotes, backslashes or control characters'),
);

const ReplacementSchema = v.variant(
  'style',
  [
    v.strictObject({ style: v.literal('fixed'), text: FixedText }),
    v.strictObject({ style: v.literal('type_tag') }),
    v.strictObject({
      style: v.literal('keep_last'),
      n: v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'), v.maxValue(8, 'must be at most 8')),
    }),
    v.strictObject({ style: v.literal('hash') }),
  ],
  'must be one of fixed, type_tag, keep_last, hash',
);

const AttributeGlob = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(256, 'must be at most 256 characters'),
  v.regex(/^[^\u0000-\u001f]*$/, 'must not contain control characters'),
);

const FieldsSchema = v.strictObject({
  input: v.optional(v.boolean()),
  output: v.optional(v.boolean()),
  events: v.optional(v.boolean()),
  statusMessage: v.optional(v.boolean()),
  attributes: v.optional(v.pipe(v.array(AttributeGlob), v.maxLength(MAX_ATTRIBUTE_GLOBS, `at most ${MAX_ATTRIBUTE_GLOBS} patterns`))),
});

const RuleSchema = v.strictObject({
  name: RuleName,
  detector: v.optional(v.picklist(DETECTOR_NAMES, `must be one of ${DETECTOR_NAMES.join(', ')}`)),
  pattern: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, 'must not be empty'),
      v.maxLength(MAX_PATTERN_LENGTH, `must be at most ${MAX_PATTERN_LENGTH} characters`),
    ),
  ),
  flags: v.optional(v.pipe(v.string(), v.regex(/^(?!.*(.).*\1)[imsu]*$/, 'must be distinct letters among i, m, s, u'))),
  replacement: v.optional(ReplacementSchema),
  fields: v.optional(FieldsSchema),
});

export const MaskingPolicySchema = v.strictObject({
  rules: v.pipe(v.array(RuleSchema), v.maxLength(MAX_RULES, `at most ${MAX_RULES} rules`)),
});

export type Replacement = v.InferOutput<typeof ReplacementSchema>;

/** Where a rule applies, every key present (the stored, normalized form). */
export interface RuleFields {
  input: boolean;
  output: boolean;
  /** Attributes of span events (exception messages, GenAI message events). */
  events: boolean;
  /** The span's status message (error texts often echo the input). */
  statusMessage: boolean;
  /** Globs over attribute keys (span, resource and link attributes): `*` any run, `?` one character. */
  attributes: string[];
}

/** One rule, normalized: exactly one of `detector` or `pattern`, defaults filled in. */
export interface MaskingRule {
  name: string;
  detector?: DetectorName;
  pattern?: string;
  flags?: string;
  replacement: Replacement;
  fields: RuleFields;
}

export interface MaskingPolicy {
  rules: MaskingRule[];
}

/** What a rule covers when it names no fields: everything that is stored. */
export const DEFAULT_FIELDS: Readonly<RuleFields> = {
  input: true,
  output: true,
  events: true,
  statusMessage: true,
  attributes: ['*'],
};

export interface PolicyProblem {
  /** Dot path into the submitted policy, e.g. `rules.2.pattern`. */
  field: string;
  message: string;
}

/** A refused policy; `problems` lists every problem found, in document order. */
export class MaskingPolicyError extends Error {
  readonly problems: PolicyProblem[];
  constructor(problems: PolicyProblem[]) {
    super(`invalid masking policy: ${problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join('; ')}`);
    this.name = 'MaskingPolicyError';
    this.problems = problems;
  }
}

type RuleInput = v.InferOutput<typeof RuleSchema>;

function normalizeFields(fields: RuleInput['fields']): RuleFields {
  if (fields === undefined) return { ...DEFAULT_FIELDS, attributes: [...DEFAULT_FIELDS.attributes] };
  return {
    input: fields.input ?? false,
    output: fields.output ?? false,
    events: fields.events ?? false,
    statusMessage: fields.statusMessage ?? false,
    attributes: fields.attributes ?? [],
  };
}

/** Checks that need the whole rule (one of detector/pattern, pattern safety, unique names). */
function ruleProblems(rule: RuleInput, path: string, seenNames: Set<string>, deadline: number): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  if (seenNames.has(rule.name)) problems.push({ field: `${path}.name`, message: `duplicate rule name "${rule.name}"` });
  seenNames.add(rule.name);
  if ((rule.detector === undefined) === (rule.pattern === undefined)) {
    problems.push({ field: path, message: 'must have exactly one of detector or pattern' });
  }
  if (rule.flags !== undefined && rule.pattern === undefined) {
    problems.push({ field: `${path}.flags`, message: 'only applies to a pattern rule' });
  }
  if (rule.pattern !== undefined) {
    const left = deadline - performance.now();
    const problem =
      left > 0
        ? patternProblem(rule.pattern, rule.flags ?? '', Math.min(ANALYSIS_TIMEOUT_MS, left))
        : 'not checked: the patterns before it used up the time for checking one policy; fix or remove the refused ones first';
    if (problem !== undefined) problems.push({ field: `${path}.pattern`, message: problem });
  }
  const fields = normalizeFields(rule.fields);
  if (!fields.input && !fields.output && !fields.events && !fields.statusMessage && fields.attributes.length === 0) {
    problems.push({ field: `${path}.fields`, message: 'selects no field: set input, output, events, statusMessage or attributes' });
  }
  return problems;
}

function normalizeRule(rule: RuleInput): MaskingRule {
  const out: MaskingRule = { name: rule.name, replacement: rule.replacement ?? { style: 'type_tag' }, fields: normalizeFields(rule.fields) };
  if (rule.detector !== undefined) out.detector = rule.detector;
  if (rule.pattern !== undefined) {
    out.pattern = rule.pattern;
    if (rule.flags) out.flags = rule.flags;
  }
  return out;
}

/**
 * Validates a submitted policy and returns its normalized form (defaults filled in),
 * or throws a MaskingPolicyError listing every problem.
 */
export function parsePolicy(input: unknown): MaskingPolicy {
  const problems: PolicyProblem[] = [];
  const parsed = v.safeParse(MaskingPolicySchema, input);
  if (!parsed.success) {
    for (const issue of parsed.issues) {
      problems.push({ field: issue.path?.map((p) => String(p.key)).join('.') ?? '', message: issue.message });
    }
  }
  // Rules that passed the schema on their own still get the semantic checks, so one
  // response lists a bad pattern together with, say, a misspelt key elsewhere.
  const rules = typeof input === 'object' && input !== null && Array.isArray((input as { rules?: unknown }).rules) ? (input as { rules: unknown[] }).rules : [];
  const seenNames = new Set<string>();
  const deadline = performance.now() + POLICY_ANALYSIS_BUDGET_MS;
  const normalized: MaskingRule[] = [];
  rules.slice(0, MAX_RULES).forEach((raw, i) => {
    const rule = v.safeParse(RuleSchema, raw);
    if (!rule.success) return;
    problems.push(...ruleProblems(rule.output, `rules.${i}`, seenNames, deadline));
    normalized.push(normalizeRule(rule.output));
  });
  if (problems.length > 0) throw new MaskingPolicyError(problems.sort(byField));
  return { rules: normalized };
}

/** Document order: `rules.2.x` before `rules.10.x`. */
function byField(a: PolicyProblem, b: PolicyProblem): number {
  return a.field.localeCompare(b.field, 'en', { numeric: true });
}
