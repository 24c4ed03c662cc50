import { METADATA_PREFIXES } from '@aos/domain';
import type { ContextSpan, EvaluationContext, EvaluationTarget } from '@aos/storage';

/**
 * What an evaluator can read about the item it judges. A template names variables
 * (`{{output}}`); the evaluator maps each to one of these paths. Keyed paths take a key
 * in brackets, as in the query language: `span.attributes["gen_ai.request.model"]`.
 */
export type VariableType = 'string' | 'number' | 'json';

export interface VariableDefinition {
  path: string;
  type: VariableType;
  /** Targets whose items have it. */
  targets: EvaluationTarget[];
  description: string;
  /** Takes a key in brackets. */
  keyed?: boolean;
}

const TRACE_AND_SPAN: EvaluationTarget[] = ['trace', 'span'];

export const VARIABLES: VariableDefinition[] = [
  { path: 'trace.input', type: 'string', targets: TRACE_AND_SPAN, description: "The trace's input: its root span's input, or, when the root has none (an HTTP server span), its first agent or LLM input." },
  { path: 'trace.output', type: 'string', targets: TRACE_AND_SPAN, description: "The trace's output: its root span's output, or, when the root has none, its last agent or LLM output." },
  { path: 'trace.name', type: 'string', targets: TRACE_AND_SPAN, description: "The root span's name." },
  { path: 'trace.status', type: 'string', targets: TRACE_AND_SPAN, description: 'ok, error or unset (error when any span failed).' },
  { path: 'trace.durationMs', type: 'number', targets: TRACE_AND_SPAN, description: 'From the first span start to the last span end.' },
  { path: 'trace.cost', type: 'number', targets: TRACE_AND_SPAN, description: 'Cost of the model calls, USD.' },
  { path: 'trace.totalTokens', type: 'number', targets: TRACE_AND_SPAN, description: 'Tokens of the model calls.' },
  { path: 'trace.toolCalls', type: 'json', targets: TRACE_AND_SPAN, description: 'Tool calls in order: name, arguments, output, status.' },
  { path: 'trace.retrievals', type: 'string', targets: TRACE_AND_SPAN, description: 'Outputs of the retrieval spans (the context an answer may rely on).' },
  { path: 'trace.steps', type: 'json', targets: TRACE_AND_SPAN, description: 'Every span in start order: name, type, status, duration.' },
  { path: 'trace.attributes', type: 'string', targets: TRACE_AND_SPAN, keyed: true, description: 'An attribute of the root span, by key.' },
  { path: 'trace.metadata', type: 'string', targets: TRACE_AND_SPAN, keyed: true, description: 'A metadata value of the trace (root span first), by key.' },
  { path: 'span.input', type: 'string', targets: ['span'], description: "The span's input." },
  { path: 'span.output', type: 'string', targets: ['span'], description: "The span's output." },
  { path: 'span.name', type: 'string', targets: ['span'], description: "The span's name." },
  { path: 'span.type', type: 'string', targets: ['span'], description: 'llm, tool, agent, retrieval…' },
  { path: 'span.model', type: 'string', targets: ['span'], description: 'The model of a model call.' },
  { path: 'span.status', type: 'string', targets: ['span'], description: 'ok, error or unset.' },
  { path: 'span.durationMs', type: 'number', targets: ['span'], description: "The span's duration." },
  { path: 'span.cost', type: 'number', targets: ['span'], description: "The span's cost, USD." },
  { path: 'span.toolName', type: 'string', targets: ['span'], description: 'The tool a tool span called.' },
  { path: 'span.toolArguments', type: 'string', targets: ['span'], description: 'The arguments of a tool call.' },
  { path: 'span.attributes', type: 'string', targets: ['span'], keyed: true, description: 'An attribute of the span, by key.' },
  { path: 'span.metadata', type: 'string', targets: ['span'], keyed: true, description: 'A metadata value of the span, by key.' },
  { path: 'session.transcript', type: 'string', targets: ['session'], description: 'Each trace of the session in order, as "User: input" / "Assistant: output".' },
  { path: 'session.input', type: 'string', targets: ['session'], description: "The first trace's input." },
  { path: 'session.output', type: 'string', targets: ['session'], description: "The last trace's output." },
  { path: 'session.traceCount', type: 'number', targets: ['session'], description: 'Traces in the session.' },
  { path: 'session.durationMs', type: 'number', targets: ['session'], description: 'Sum of the durations of its traces.' },
  { path: 'session.cost', type: 'number', targets: ['session'], description: 'Sum of the costs of its traces, USD.' },
  { path: 'session.toolCalls', type: 'json', targets: ['session'], description: 'Tool calls of all its traces, in order.' },
];

const BY_PATH = new Map(VARIABLES.map((v) => [v.path, v]));
const KEYED = /^([a-z]+\.[A-Za-z]+)\["([^"\\]+)"\]$/;

/** A variable path split into its definition and key; null when the path is unknown or misused. */
export function parseVariablePath(path: string): { definition: VariableDefinition; key: string | null } | null {
  const keyed = KEYED.exec(path);
  const definition = BY_PATH.get(keyed ? keyed[1]! : path);
  if (!definition || Boolean(definition.keyed) !== Boolean(keyed)) return null;
  return { definition, key: keyed ? keyed[2]! : null };
}

/** Why a path cannot be read by an evaluator of this target, or null when it can. */
export function variableProblem(path: string, target: EvaluationTarget): string | null {
  const parsed = parseVariablePath(path);
  if (!parsed) return `unknown variable ${JSON.stringify(path)} (GET /trace-evaluators/variables lists them; keyed ones as trace.attributes["key"])`;
  if (!parsed.definition.targets.includes(target)) return `${path} is not available to a ${target} evaluator`;
  return null;
}

/** The value of a variable for an item, as text for a prompt or a check. */
export function resolveVariable(path: string, context: EvaluationContext): string | number {
  const parsed = parseVariablePath(path);
  if (!parsed) throw new Error(`unknown variable ${path}`);
  const { definition, key } = parsed;
  const first = context.traces[0];
  const root = first ? rootSpan(first.spans) : null;
  const span = context.span;
  switch (definition.path) {
    case 'trace.input': return first?.trace.input ?? '';
    case 'trace.output': return first?.trace.output ?? '';
    case 'trace.name': return first?.trace.name ?? '';
    case 'trace.status': return first?.trace.status ?? '';
    case 'trace.durationMs': return first?.trace.durationMs ?? 0;
    case 'trace.cost': return first?.trace.cost ?? 0;
    case 'trace.totalTokens': return first?.trace.totalTokens ?? 0;
    case 'trace.toolCalls': return JSON.stringify(toolCalls(first?.spans ?? []));
    case 'trace.retrievals': return (first?.spans ?? []).filter((s) => s.type === 'retrieval').map((s) => s.output).join('\n\n');
    case 'trace.steps':
      return JSON.stringify((first?.spans ?? []).map((s) => ({ name: s.name, type: s.type, status: s.status, durationMs: s.durationMs })));
    case 'trace.attributes': return root?.attributes[key!] ?? '';
    case 'trace.metadata': return firstMetadata([...(root ? [root] : []), ...(first?.spans ?? [])], key!);
    case 'span.input': return span?.input ?? '';
    case 'span.output': return span?.output ?? '';
    case 'span.name': return span?.name ?? '';
    case 'span.type': return span?.type ?? '';
    case 'span.model': return span?.model ?? '';
    case 'span.status': return span?.status ?? '';
    case 'span.durationMs': return span?.durationMs ?? 0;
    case 'span.cost': return span?.cost ?? 0;
    case 'span.toolName': return span?.toolName ?? '';
    case 'span.toolArguments': return span?.toolArguments ?? '';
    case 'span.attributes': return span?.attributes[key!] ?? '';
    case 'span.metadata': return span ? firstMetadata([span], key!) : '';
    case 'session.transcript':
      return context.traces.map((t) => `User: ${t.trace.input}\nAssistant: ${t.trace.output}`).join('\n\n');
    case 'session.input': return first?.trace.input ?? '';
    case 'session.output': return context.traces.at(-1)?.trace.output ?? '';
    case 'session.traceCount': return context.traces.length;
    case 'session.durationMs': return context.traces.reduce((sum, t) => sum + t.trace.durationMs, 0);
    case 'session.cost': return context.traces.reduce((sum, t) => sum + t.trace.cost, 0);
    case 'session.toolCalls': return JSON.stringify(context.traces.flatMap((t) => toolCalls(t.spans)));
    default: throw new Error(`variable ${path} has no resolver`);
  }
}

/** Tool spans of a trace (by type or by a tool name), in start order. */
export function toolSpans(spans: readonly ContextSpan[]): ContextSpan[] {
  return spans.filter((s) => s.type === 'tool' || s.toolName !== null);
}

function toolCalls(spans: readonly ContextSpan[]) {
  return toolSpans(spans).map((s) => ({ name: s.toolName ?? s.name, arguments: s.toolArguments ?? '', output: s.output, status: s.status }));
}

function rootSpan(spans: readonly ContextSpan[]): ContextSpan | null {
  return spans.find((s) => s.parentSpanId === null) ?? spans[0] ?? null;
}

/** Metadata as the conventions send it: flattened under a prefix, or a JSON object in `metadata` (see the query language). */
function firstMetadata(spans: readonly ContextSpan[], key: string): string {
  for (const span of spans) {
    for (const prefix of METADATA_PREFIXES) {
      const value = span.attributes[`${prefix}${key}`];
      if (value !== undefined) return value;
    }
    const json = span.attributes.metadata;
    if (json) {
      try {
        const object = JSON.parse(json) as Record<string, unknown>;
        if (object && typeof object === 'object' && key in object) {
          const value = object[key];
          return typeof value === 'string' ? value : JSON.stringify(value);
        }
      } catch {
        // not a JSON object: no metadata there
      }
    }
  }
  return '';
}
