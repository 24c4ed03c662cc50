import {
  definitionOf,
  resolveEvaluator,
  type EvaluatorDefinition,
  type EvaluatorInput,
  type TraceFilterFields,
} from '@aos/evaluators';
import { ApiError } from '@aos/http';
import type { ApiKeyRecord, SpanFilterFields, StoredEvaluator } from '@aos/storage';
import { SPAN_FILTER_PARAMS, SPAN_FILTER_REPEATED_PARAMS, parseSpanFilter } from '../../filters/span-filter.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, savedFilterFields } from '../../filters/trace-filter.ts';

/**
 * From a request to what is stored: the definition resolved by @aos/evaluators, with the
 * item filter parsed by the trace filter and the span filter by the span search, the same
 * parsers the trace and span endpoints use. Parameters set by each run are refused.
 */
const RUN_PARAMS = ['startTime', 'endTime', 'projectId'];

export interface EvaluatorToStore {
  name: string;
  autoRun: boolean;
  definition: EvaluatorDefinition;
}

export function toStore(input: EvaluatorInput, key: ApiKeyRecord, hasDefaultEndpoint: boolean): EvaluatorToStore {
  const resolved = resolveEvaluator(input, hasDefaultEndpoint);
  if (!resolved.ok) {
    const [first] = resolved.problems;
    throw new ApiError('invalid_request', `invalid evaluator: ${first!.field}: ${first!.message}`, resolved.problems);
  }
  const { definition } = resolved.value;
  return {
    name: resolved.value.name,
    autoRun: resolved.value.autoRun,
    definition: {
      ...definition,
      traceFilter: traceFilterFields(definition.filter, key),
      spanFilterFields: spanFilterFields(definition.spanFilter, key),
    },
  };
}

function checkNames(filter: Record<string, string | string[]>, allowed: readonly string[], repeated: readonly string[], field: string) {
  for (const [name, value] of Object.entries(filter)) {
    const problem = RUN_PARAMS.includes(name)
      ? 'is set by each run, not by the evaluator'
      : !allowed.includes(name) && !repeated.includes(name)
        ? `unknown filter parameter (known: ${[...allowed, ...repeated].filter((n) => !RUN_PARAMS.includes(n)).join(', ')})`
        : Array.isArray(value) && !repeated.includes(name)
          ? 'takes one value'
          : null;
    if (problem) throw new ApiError('invalid_request', `${field}.${name}: ${problem}`, [{ field: `${field}.${name}`, message: problem }]);
  }
}

function traceFilterFields(filter: Record<string, string | string[]>, key: ApiKeyRecord): TraceFilterFields {
  checkNames(filter, TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, 'filter');
  return savedFilterFields(filter, key);
}

function spanFilterFields(filter: Record<string, string | string[]>, key: ApiKeyRecord): SpanFilterFields {
  checkNames(filter, SPAN_FILTER_PARAMS, SPAN_FILTER_REPEATED_PARAMS, 'spanFilter');
  const { projectId: _p, startTimeMs: _s, endTimeMs: _e, ...fields } = parseSpanFilter(filter, key, 'spanFilter');
  return fields;
}

/** An evaluator as the API returns it (see presentEvaluator). */
export type EvaluatorView = ReturnType<typeof presentEvaluator>;

/** An evaluator as the API returns it: the model key is never part of it, only whether one is set. */
export function presentEvaluator(evaluator: StoredEvaluator) {
  const d = definitionOf(evaluator);
  return {
    id: evaluator.id,
    projectId: evaluator.projectId,
    name: evaluator.name,
    version: evaluator.version,
    description: d.description,
    kind: d.kind,
    template: d.template,
    target: d.target,
    scoreName: d.scoreName,
    autoRun: evaluator.autoRun,
    samplingRate: d.samplingRate,
    concurrency: d.concurrency,
    filter: d.filter,
    spanFilter: d.spanFilter,
    output: d.output,
    ...(d.kind === 'model'
      ? {
          prompt: d.prompt,
          variables: d.variables,
          model: { ...d.model, apiKeySet: evaluator.apiKeySet, apiKeyHint: evaluator.apiKeyHint ? `…${evaluator.apiKeyHint}` : null },
        }
      : { check: d.check }),
    createdAt: evaluator.createdAt,
    updatedAt: evaluator.updatedAt,
    createdBy: evaluator.createdBy,
  };
}
