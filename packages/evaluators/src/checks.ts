import * as v from 'valibot';
import type { EvaluationContext, EvaluationTarget } from '@aos/storage';
import { unsupportedSchemaKeywords, validateJsonSchema, type JsonSchema } from './json-schema.ts';
import { PII_KINDS, findPii } from './pii.ts';
import { resolveVariable, toolSpans, variableProblem } from './variables.ts';

/**
 * Deterministic checks: evaluators that need no model. Each reads one field of the item
 * (a variable path, by default the target's output) or its figures, and gives a boolean
 * (tool_error_rate: a number from 0 to 1) with a sentence saying why.
 */
const field = v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(300)));
const MAX_PATTERN = 1000;

export const checkSchema = v.variant('type', [
  v.strictObject({
    type: v.literal('regex'),
    pattern: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(MAX_PATTERN)),
    flags: v.optional(v.pipe(v.string(), v.regex(/^[imsu]*$/, 'may only hold the flags i, m, s, u'))),
    field,
  }),
  v.strictObject({ type: v.literal('contains'), value: v.pipe(v.string(), v.minLength(1)), caseSensitive: v.optional(v.boolean()), field }),
  v.strictObject({ type: v.literal('not_contains'), value: v.pipe(v.string(), v.minLength(1)), caseSensitive: v.optional(v.boolean()), field }),
  v.strictObject({ type: v.literal('json_valid'), field }),
  v.strictObject({ type: v.literal('json_schema'), schema: v.union([v.record(v.string(), v.unknown()), v.boolean()], 'must be a JSON schema object'), field }),
  v.strictObject({ type: v.literal('latency'), maxMs: v.pipe(v.number(), v.minValue(0)) }),
  v.strictObject({ type: v.literal('cost'), maxUsd: v.pipe(v.number(), v.minValue(0)) }),
  v.strictObject({ type: v.literal('empty_output'), field }),
  v.strictObject({ type: v.literal('pii'), kinds: v.optional(v.array(v.picklist(PII_KINDS, `must be one of ${PII_KINDS.join(', ')}`))), field }),
  v.strictObject({ type: v.literal('tool_error_rate') }),
]);
export type CheckSpec = v.InferOutput<typeof checkSchema>;
export const CHECK_TYPES = ['regex', 'contains', 'not_contains', 'json_valid', 'json_schema', 'latency', 'cost', 'empty_output', 'pii', 'tool_error_rate'] as const;

export interface CheckResult {
  value: number | boolean;
  reasoning: string;
}

/** The field a check reads when it names none: the target's own output. */
export function defaultCheckField(target: EvaluationTarget): string {
  return `${target}.output`;
}

/** What is wrong with a check for this target (bad pattern, unsupported schema, unknown field), or []. */
export function checkProblems(check: CheckSpec, target: EvaluationTarget): string[] {
  const problems: string[] = [];
  if ('field' in check && check.field !== undefined) {
    const problem = variableProblem(check.field, target);
    if (problem) problems.push(`field: ${problem}`);
  }
  if (check.type === 'regex') {
    try {
      new RegExp(check.pattern, check.flags ?? '');
    } catch (err) {
      problems.push(`pattern: ${(err as Error).message}`);
    }
  }
  if (check.type === 'json_schema') {
    const unsupported = unsupportedSchemaKeywords(check.schema);
    if (unsupported.length > 0) problems.push(`schema: unsupported keywords ${unsupported.join(', ')}`);
  }
  return problems;
}

/** Runs a check on an item. */
export function runCheck(check: CheckSpec, target: EvaluationTarget, context: EvaluationContext): CheckResult {
  const text = () => String(resolveVariable(('field' in check && check.field) || defaultCheckField(target), context));
  switch (check.type) {
    case 'regex': {
      const matched = new RegExp(check.pattern, check.flags ?? '').test(text());
      return { value: matched, reasoning: matched ? `matches /${check.pattern}/` : `does not match /${check.pattern}/` };
    }
    case 'contains':
    case 'not_contains': {
      const found = contains(text(), check.value, check.caseSensitive ?? false);
      const value = check.type === 'contains' ? found : !found;
      return { value, reasoning: `${found ? 'contains' : 'does not contain'} ${JSON.stringify(check.value)}` };
    }
    case 'json_valid': {
      const parsed = parseJson(text());
      return { value: parsed.ok, reasoning: parsed.ok ? 'valid JSON' : `not valid JSON: ${parsed.error}` };
    }
    case 'json_schema': {
      const parsed = parseJson(text());
      if (!parsed.ok) return { value: false, reasoning: `not valid JSON: ${parsed.error}` };
      const errors = validateJsonSchema(check.schema as JsonSchema, parsed.value);
      return {
        value: errors.length === 0,
        reasoning: errors.length === 0 ? 'conforms to the schema' : `${errors.length} schema violation(s): ${errors.slice(0, 5).join('; ')}`,
      };
    }
    case 'latency': {
      const ms = figure(target, context, 'durationMs');
      return { value: ms <= check.maxMs, reasoning: `took ${round(ms)} ms (threshold ${check.maxMs} ms)` };
    }
    case 'cost': {
      const usd = figure(target, context, 'cost');
      return { value: usd <= check.maxUsd, reasoning: `cost ${usd} USD (threshold ${check.maxUsd} USD)` };
    }
    case 'empty_output': {
      const empty = text().trim() === '';
      return { value: empty, reasoning: empty ? 'the output is empty' : 'the output is not empty' };
    }
    case 'pii': {
      const found = findPii(text(), check.kinds ?? PII_KINDS);
      const kinds = Object.entries(found).map(([kind, n]) => `${kind} (${n})`);
      return { value: kinds.length > 0, reasoning: kinds.length > 0 ? `found ${kinds.join(', ')}` : 'no personal data found' };
    }
    case 'tool_error_rate': {
      const spans = context.span ? [context.span] : context.traces.flatMap((t) => t.spans);
      const tools = toolSpans(spans);
      const failed = tools.filter((s) => s.status === 'error').length;
      return {
        value: tools.length === 0 ? 0 : failed / tools.length,
        reasoning: tools.length === 0 ? 'no tool calls' : `${failed} of ${tools.length} tool calls failed`,
      };
    }
  }
}

function contains(haystack: string, needle: string, caseSensitive: boolean): boolean {
  return caseSensitive ? haystack.includes(needle) : haystack.toLowerCase().includes(needle.toLowerCase());
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function figure(target: EvaluationTarget, context: EvaluationContext, which: 'durationMs' | 'cost'): number {
  return Number(resolveVariable(`${target}.${which}`, context));
}

const round = (n: number) => Math.round(n * 100) / 100;
