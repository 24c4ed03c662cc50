/**
 * Mastra's AI tracing through its OTel exporter (`@mastra/otel-exporter`), recognised by
 * `mastra.span.type`. Model spans carry GenAI semconv (read by genai.ts); this reader adds
 * what only Mastra says:
 *   - 1.x: `mastra.<span type>.input` / `.output` for agent runs, workflows and the other
 *     non-model spans (the agent's input messages, its `{"text":…}` result), `mastra.metadata.*`
 *     (session as `sessionId` or the memory `threadId`, user as `userId` or the memory
 *     `resourceId`), `mastra.completion_start_time` (read by time-to-first-token.ts);
 *   - 0.x: `input` / `output` on every span, `gen_ai.tool.input` / `gen_ai.tool.output` on
 *     tools, `agent.id`, span types such as `llm_generation`.
 * The agent's instructions arrive as `gen_ai.system_instructions` (plain text): they are
 * the span's system instructions, not its input.
 */
import type { AttributeValue, OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { firstText, lowerText, textOf } from '../attributes.ts';
import { attributeConversation, textConversation, unquoteJson } from '../messages/json.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';

export const MASTRA_SPAN_TYPE_KEY = 'mastra.span.type';

const SPAN_TYPES: Readonly<Record<string, SpanType>> = {
  agent_run: 'agent',
  // A workflow is an agent run in semantic-conventions-genai (`invoke_workflow` → `invoke_agent`).
  workflow_run: 'agent',
  model_generation: 'llm',
  // 1.x with inference spans: the provider call itself, below the generation and its steps.
  model_inference: 'llm',
  llm_generation: 'llm', // 0.x
  model_step: 'chain',
  model_chunk: 'span',
  llm_chunk: 'span',
  tool_call: 'tool',
  mcp_tool_call: 'tool',
  provider_tool_call: 'tool',
  processor_run: 'guardrail',
  rag_embedding: 'embedding',
  generic: 'span',
};

/** Spans whose input and output are conversations (message lists, `{"text":…}` results). */
const CONVERSATION_TYPES = new Set(['agent_run', 'model_generation', 'llm_generation', 'model_step']);

/** 1.x under `mastra.metadata.*`; 0.24 sets bare `sessionId` / `userId` on the agent run. */
const SESSION_KEYS = ['mastra.metadata.sessionId', 'mastra.metadata.threadId', 'sessionId'];
const USER_KEYS = ['mastra.metadata.userId', 'mastra.metadata.resourceId', 'userId'];

/**
 * Where Mastra sends `model_inference` spans (1.x with @mastra/observability's inference
 * spans), the generation above them carries neither model nor usage: it wraps the steps
 * and calls, so it is a chain, and a trace counts each call (and its tokens) once.
 */
function spanTypeOf(type: string, a: OtlpSpan['attributes']): SpanType | undefined {
  if (type === 'model_generation' && a['gen_ai.request.model'] === undefined && a['gen_ai.usage.input_tokens'] === undefined) return 'chain';
  return SPAN_TYPES[type] ?? (type.startsWith('workflow_') ? 'chain' : undefined);
}

function plainText(value: AttributeValue | undefined): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' ? unquoteJson(value) : JSON.stringify(value);
}

export function readMastra(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const type = lowerText(a, MASTRA_SPAN_TYPE_KEY);
  if (type === undefined) return;
  const spanType = spanTypeOf(type, a);
  f.spanType ??= spanType;
  f.sessionId ??= firstText(a, SESSION_KEYS);
  f.userId ??= firstText(a, USER_KEYS);
  if (type === 'agent_run') f.agentName ??= textOf(a, 'agent.id');

  const input = a[`mastra.${type}.input`] ?? a['input'];
  const output = a[`mastra.${type}.output`] ?? a['output'];
  if (spanType === 'tool') {
    const args = textOf(a, 'gen_ai.tool.call.arguments') ?? textOf(a, 'gen_ai.tool.input') ?? plainText(input);
    f.toolArguments ??= args;
    takeInputText(f, args);
    takeOutputText(f, plainText(a['gen_ai.tool.output'] ?? output));
  } else if (CONVERSATION_TYPES.has(type)) {
    takeInput(f, textConversation(input, 'input'));
    const answer = attributeConversation(output, 'output');
    if (answer !== undefined) takeOutput(f, answer.messages);
    else takeOutputText(f, plainText(output));
  } else {
    takeInputText(f, plainText(input));
    takeOutputText(f, plainText(output));
  }
}
