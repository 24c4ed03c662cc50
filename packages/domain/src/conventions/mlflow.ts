/**
 * MLflow Tracing exported over OTLP (MLflow 3, its autologging of OpenAI, LangChain,
 * LlamaIndex, DSPy…): every attribute value is JSON, strings quoted (`"CHAT_MODEL"`).
 *   - `mlflow.spanType`: LLM, CHAT_MODEL, TOOL, AGENT, CHAIN, RETRIEVER, EMBEDDING,
 *     RERANKER, PARSER, UNKNOWN;
 *   - `mlflow.spanInputs` / `mlflow.spanOutputs`: the function's arguments and result —
 *     for model spans the request and response bodies (OpenAI's, LangChain's…), reduced
 *     to their messages; `mlflow.chat.messages` (older versions) the conversation with
 *     the answer last;
 *   - `mlflow.llm.model`, `mlflow.chat.tokenUsage` (`input_tokens`, `output_tokens`,
 *     `total_tokens`), `mlflow.llm.cost` (`total_cost`, USD).
 */
import type { AttributeValue, Attributes, OtlpSpan } from '@aos/otlp';
import type { SpanType } from '../span-row.ts';
import { conversationOf } from '../messages/bodies.ts';
import { messagesOf } from '../messages/chat-messages.ts';
import { attributeJson } from '../messages/json.ts';
import { splitAtAnswer } from '../messages/model.ts';
import { isObject } from '../messages/parts.ts';
import { takeInput, takeInputText, takeOutput, takeOutputText, type SpanFacts } from './facts.ts';

export const MLFLOW_SPAN_TYPE_KEY = 'mlflow.spanType';

const SPAN_TYPES: Readonly<Record<string, SpanType>> = {
  LLM: 'llm',
  CHAT_MODEL: 'llm',
  TOOL: 'tool',
  AGENT: 'agent',
  CHAIN: 'chain',
  RETRIEVER: 'retrieval',
  EMBEDDING: 'embedding',
  RERANKER: 'reranker',
  PARSER: 'chain',
};

/** A JSON-encoded attribute's string value (`"\"gpt-4o\""` → `gpt-4o`). */
function jsonText(value: AttributeValue | undefined): string | undefined {
  const parsed = attributeJson(value);
  return typeof parsed === 'string' && parsed !== '' ? parsed : undefined;
}

/** Arguments or a result as the text a person reads: a string as it is, anything else as its JSON. */
function readable(value: AttributeValue | undefined): string | undefined {
  const parsed = attributeJson(value);
  if (parsed === undefined || parsed === null || parsed === '') return undefined;
  return typeof parsed === 'string' ? parsed : JSON.stringify(parsed);
}

function count(usage: Record<string, unknown>, key: string): number | undefined {
  const value = usage[key];
  return typeof value === 'number' ? value : undefined;
}

function readModelCall(a: Attributes, f: SpanFacts): void {
  f.model ??= jsonText(a['mlflow.llm.model']);
  const usage = attributeJson(a['mlflow.chat.tokenUsage']);
  if (isObject(usage)) {
    f.inputTokens ??= count(usage, 'input_tokens');
    f.outputTokens ??= count(usage, 'output_tokens');
    f.totalTokens ??= count(usage, 'total_tokens');
  }
  const cost = attributeJson(a['mlflow.llm.cost']);
  if (isObject(cost)) f.explicitCost ??= count(cost, 'total_cost');
  const inputs = attributeJson(a['mlflow.spanInputs']);
  takeInput(f, inputs === undefined ? undefined : conversationOf(inputs, 'input'));
  const outputs = attributeJson(a['mlflow.spanOutputs']);
  takeOutput(f, outputs === undefined ? undefined : conversationOf(outputs, 'output')?.messages);
  const chat = messagesOf(attributeJson(a['mlflow.chat.messages']), 'input');
  if (chat !== undefined) {
    const { input, output } = splitAtAnswer(chat);
    takeInput(f, { messages: input });
    takeOutput(f, output);
  }
}

export function readMlflow(span: OtlpSpan, f: SpanFacts): void {
  const a = span.attributes;
  const type = jsonText(a[MLFLOW_SPAN_TYPE_KEY]);
  if (type === undefined) return;
  const spanType = SPAN_TYPES[type] ?? 'span';
  f.spanType ??= spanType;
  if (spanType === 'llm') return readModelCall(a, f);
  const inputs = readable(a['mlflow.spanInputs']);
  if (spanType === 'tool') {
    // The traced function's name is the tool's.
    f.toolName ??= span.name;
    f.toolArguments ??= inputs;
  }
  takeInputText(f, inputs);
  takeOutputText(f, readable(a['mlflow.spanOutputs']));
}
