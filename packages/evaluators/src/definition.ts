import * as v from 'valibot';
import type { EvaluationTarget, SpanFilterFields, TraceFilter } from '@aos/storage';
import { CHECK_TYPES, checkProblems, checkSchema, type CheckSpec } from './checks.ts';
import { outputSchema, type OutputSpec } from './judge-reply.ts';
import { checkOutput, findTemplate, promptVariables } from './templates.ts';
import { variableProblem } from './variables.ts';

/**
 * An evaluator's definition: what the API accepts (`evaluatorInputSchema`), and the
 * resolved form stored as the evaluator's definition, with the template's defaults filled
 * in and every rule between fields checked. A PATCH merges into the stored form and is
 * resolved again, so a change is held to the same rules as a creation.
 */
export const TARGETS = ['trace', 'span', 'session'] as const;
export const MAX_CONCURRENCY = 32;

const filterValue = v.union([v.string(), v.number(), v.array(v.string())], 'must be a string, a number or an array of strings');
const filterSchema = v.record(v.string(), filterValue, 'must be an object of filter parameters');

const modelSchema = v.strictObject({
  baseUrl: v.optional(v.nullable(v.pipe(v.string(), v.url('must be a URL'), v.regex(/^https?:\/\//, 'must be an http(s) URL'), v.maxLength(500)))),
  model: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(200)))),
  /** Write-only: stored, never returned (the evaluator shows apiKeySet and a hint). null removes it. */
  apiKey: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(1000)))),
  temperature: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(2))),
  maxTokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(16), v.maxValue(8192))),
  timeoutMs: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(600_000)))),
  maxAttempts: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)))),
});

const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));

const fields = {
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)),
  description: v.optional(text(2000)),
  template: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1)))),
  kind: v.optional(v.picklist(['model', 'check'], 'must be model or check')),
  target: v.optional(v.picklist(TARGETS, `must be one of ${TARGETS.join(', ')}`)),
  scoreName: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))),
  prompt: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(50_000)))),
  variables: v.optional(v.record(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain name')), v.string())),
  output: v.optional(v.nullable(outputSchema)),
  check: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  model: v.optional(modelSchema),
  filter: v.optional(filterSchema),
  spanFilter: v.optional(filterSchema),
  samplingRate: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  autoRun: v.optional(v.boolean()),
  concurrency: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_CONCURRENCY))),
};

export const evaluatorInputSchema = v.strictObject(fields);
export type EvaluatorInput = v.InferOutput<typeof evaluatorInputSchema>;

export const evaluatorPatchSchema = v.pipe(
  v.strictObject({ ...fields, name: v.optional(fields.name) }),
  v.check((p) => Object.keys(p).length > 0, 'give at least one field to change'),
);
export type EvaluatorPatch = v.InferOutput<typeof evaluatorPatchSchema>;

export interface ModelOptions {
  baseUrl: string | null;
  model: string | null;
  temperature: number;
  maxTokens: number;
  timeoutMs: number | null;
  maxAttempts: number | null;
}

/** The stored definition (everything but the name and the API key). */
export interface EvaluatorDefinition {
  description: string;
  kind: 'model' | 'check';
  template: string | null;
  target: EvaluationTarget;
  scoreName: string;
  samplingRate: number;
  concurrency: number;
  prompt: string | null;
  variables: Record<string, string>;
  output: OutputSpec;
  check: CheckSpec | null;
  model: ModelOptions | null;
  /** The filters as given (shown back), and as parsed by the trace filter and span search. */
  filter: Record<string, string | string[]>;
  spanFilter: Record<string, string | string[]>;
  traceFilter: TraceFilterFields;
  spanFilterFields: SpanFilterFields;
}

/** The trace filter without the project and window, which each run supplies. */
export type TraceFilterFields = Omit<TraceFilter, 'projectId' | 'startTimeMs' | 'endTimeMs' | 'traceIds'>;

export interface Problem {
  field: string;
  message: string;
}

/** Check parameters a template cannot guess. */
const REQUIRED_CHECK_PARAMS: Partial<Record<CheckSpec['type'], string[]>> = {
  regex: ['pattern'],
  contains: ['value'],
  not_contains: ['value'],
  json_schema: ['schema'],
};

export interface Resolved {
  name: string;
  autoRun: boolean;
  definition: Omit<EvaluatorDefinition, 'traceFilter' | 'spanFilterFields'>;
}

/**
 * Fills in the template and checks the rules between fields. `hasModelEndpoint` says
 * whether the service has a default endpoint, so a model judge without one is refused.
 */
export function resolveEvaluator(input: EvaluatorInput, hasDefaultEndpoint: boolean): { ok: true; value: Resolved } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const fail = (field: string, message: string) => problems.push({ field, message });
  const template = input.template ? findTemplate(input.template) : undefined;
  if (input.template && !template) fail('template', `unknown template ${JSON.stringify(input.template)} (GET /trace-evaluators/templates lists them)`);
  const kind = template?.kind ?? input.kind ?? (input.check ? 'check' : 'model');
  if (input.kind && template && input.kind !== template.kind) fail('kind', `template ${template.id} is a ${template.kind} evaluator`);
  const target: EvaluationTarget = input.target ?? template?.targets[0] ?? 'trace';
  if (template && !template.targets.includes(target)) fail('target', `template ${template.id} judges ${template.targets.join(', ')}`);
  const spanFilter = input.spanFilter ?? {};
  if (target !== 'span' && Object.keys(spanFilter).length > 0) fail('spanFilter', 'only a span evaluator takes a span filter');
  for (const key of ['startTime', 'endTime', 'projectId']) {
    if (input.filter && key in input.filter) fail(`filter.${key}`, 'is set by each run, not by the evaluator');
    if (key in spanFilter) fail(`spanFilter.${key}`, 'is set by each run, not by the evaluator');
  }

  let prompt: string | null = null;
  let variables: Record<string, string> = {};
  let output: OutputSpec | null = null;
  let check: CheckSpec | null = null;
  let model: ModelOptions | null = null;
  if (kind === 'model') {
    if (input.check) fail('check', 'a model evaluator has a prompt, not a check');
    prompt = input.prompt ?? (template?.kind === 'model' ? template.prompt : null);
    if (!prompt) fail('prompt', 'is required for a model evaluator (or start from a model template)');
    variables = { ...(template?.kind === 'model' ? template.variables[target] : {}), ...input.variables };
    for (const name of prompt ? promptVariables(prompt) : []) {
      if (!(name in variables)) fail(`variables.${name}`, `the prompt uses {{${name}}}: map it to a variable path`);
    }
    for (const [name, path] of Object.entries(variables)) {
      const problem = variableProblem(path, target);
      if (problem) fail(`variables.${name}`, problem);
    }
    output = input.output ?? (template?.kind === 'model' ? template.output : null);
    if (!output) fail('output', 'is required: {"type":"numeric","min":0,"max":1}, {"type":"boolean"} or {"type":"label","labels":[…]}');
    if (output?.type === 'numeric' && output.min >= output.max) fail('output.min', 'must be below output.max');
    const { apiKey: _apiKey, ...options } = input.model ?? {};
    model = {
      baseUrl: options.baseUrl ?? null,
      model: options.model ?? null,
      temperature: options.temperature ?? 0,
      maxTokens: options.maxTokens ?? 256,
      timeoutMs: options.timeoutMs ?? null,
      maxAttempts: options.maxAttempts ?? null,
    };
    if (!model.baseUrl && !hasDefaultEndpoint) fail('model.baseUrl', 'is required: the service has no default model endpoint (EVALUATOR_MODEL_BASE_URL)');
  } else {
    if (input.prompt) fail('prompt', 'a check evaluator has a check, not a prompt');
    if (input.model && Object.keys(input.model).length > 0) fail('model', 'a check evaluator calls no model');
    const base = template?.kind === 'check' ? template.check : undefined;
    const given = input.check ?? {};
    if (base && given.type !== undefined && given.type !== base.type) fail('check.type', `template ${template!.id} is a ${base.type} check`);
    for (const param of REQUIRED_CHECK_PARAMS[(base?.type ?? given.type) as CheckSpec['type']] ?? []) {
      if (!(param in given)) fail(`check.${param}`, 'is required');
    }
    const parsed = v.safeParse(checkSchema, { ...base, ...given });
    if (!parsed.success) {
      for (const issue of parsed.issues) {
        const path = issue.path?.map((p) => String(p.key)).join('.');
        fail(path ? `check.${path}` : 'check', path ? issue.message : `must be a check: type one of ${CHECK_TYPES.join(', ')}`);
      }
    } else {
      check = parsed.output;
      for (const problem of checkProblems(check, target)) fail('check', problem);
      output = checkOutput(check);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      name: input.name,
      autoRun: input.autoRun ?? false,
      definition: {
        description: input.description ?? '',
        kind,
        template: template?.id ?? null,
        target,
        scoreName: input.scoreName ?? template?.id ?? input.name,
        samplingRate: input.samplingRate ?? 1,
        concurrency: input.concurrency ?? 4,
        prompt,
        variables: kind === 'model' ? variables : {},
        output: output!,
        check,
        model,
        filter: normalizeFilter(input.filter ?? {}),
        spanFilter: normalizeFilter(spanFilter),
      },
    },
  };
}

/** The request form of a stored evaluator, which a PATCH is merged into. */
export function inputOfStored(name: string, autoRun: boolean, definition: EvaluatorDefinition): EvaluatorInput {
  return {
    name,
    autoRun,
    description: definition.description,
    template: definition.template,
    kind: definition.kind,
    target: definition.target,
    scoreName: definition.scoreName,
    samplingRate: definition.samplingRate,
    concurrency: definition.concurrency,
    ...(definition.kind === 'model'
      ? {
          prompt: definition.prompt,
          variables: definition.variables,
          output: definition.output,
          model: definition.model ?? {},
        }
      : { check: definition.check as Record<string, unknown> | null }),
    filter: definition.filter,
    spanFilter: definition.spanFilter,
  };
}

/** Filter values as query parameters are: numbers become strings. */
function normalizeFilter(filter: Record<string, string | number | string[]>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(filter).map(([k, value]) => [k, typeof value === 'number' ? String(value) : value]));
}

/**
 * A PATCH merged into the current request form: check and model parameters merge too. A
 * new template brings its own prompt, variables, output and check, unless the patch gives them.
 */
export function mergePatch(current: EvaluatorInput, patch: EvaluatorPatch): EvaluatorInput {
  if (patch.template !== undefined && patch.template !== current.template) {
    const { prompt: _p, variables: _v, output: _o, check: _c, kind: _k, scoreName: _s, ...kept } = current;
    current = kept as EvaluatorInput;
  }
  const sameCheckType = patch.check?.type === undefined || patch.check.type === current.check?.type;
  return {
    ...current,
    ...patch,
    name: patch.name ?? current.name,
    ...(patch.check !== undefined
      ? { check: patch.check === null ? null : sameCheckType ? { ...(current.check ?? {}), ...patch.check } : patch.check }
      : {}),
    ...(patch.model !== undefined ? { model: { ...current.model, ...patch.model } } : {}),
  };
}
