/**
 * Which attributes the normalizer turns into a span's input or output, so a rule on
 * `input` / `output` also covers every attribute those columns are built from (and
 * the attribute copy kept in the attributes map). Kept in step with the convention
 * readers of @aos/domain (conventions/*.ts): a key missing here would let a value
 * reach the input column unmasked under an input-only rule.
 */
import { FIELD_EVENTS, FIELD_INPUT, FIELD_OUTPUT } from './compile.ts';

const INPUT_KEYS = new Set([
  'input.value', // OpenInference
  'tool_call.function.arguments',
  'gen_ai.input.messages', // GenAI semconv
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.prompt',
  'traceloop.entity.input', // OpenLLMetry
  'ai.prompt', // Vercel AI SDK
  'ai.toolCall.args',
  'ai.toolCall.input',
  'ai.values',
  'ai.value',
  'gen_ai.tool.input', // Mastra 0.x
  'input', // Mastra 0.x, every span
  'tool_arguments', // Pydantic AI
  'gcp.vertex.agent.llm_request', // Google ADK
  'gcp.vertex.agent.tool_call_args',
  'lk.chat_ctx', // LiveKit Agents
  'lk.function_tool.arguments',
  'lk.user_input',
  'lk.user_transcript',
  'genkit:input', // Genkit
  'mlflow.spanInputs', // MLflow
]);
// `tool.parameters` is left out: OpenInference uses it for the tool's JSON schema, not
// for call arguments (those are `input.value` on the TOOL span).
const INPUT_PREFIXES = ['llm.input_messages.', 'gen_ai.prompt.', 'ai.prompt.', 'embedding.embeddings.'];

const OUTPUT_KEYS = new Set([
  'output.value',
  'gen_ai.output.messages',
  'gen_ai.tool.call.result',
  'gen_ai.completion',
  'traceloop.entity.output',
  'ai.response.text',
  'ai.response.object',
  'ai.response.toolCalls',
  'ai.response.reasoning',
  'ai.result.text', // AI SDK v3 names
  'ai.result.object',
  'ai.result.toolCalls',
  'ai.toolCall.result',
  'ai.toolCall.output',
  'gen_ai.tool.output', // Mastra 0.x
  'output',
  'final_result', // Pydantic AI
  'tool_response',
  'gcp.vertex.agent.llm_response', // Google ADK
  'gcp.vertex.agent.tool_response',
  'lk.response.text', // LiveKit Agents
  'lk.response.function_calls',
  'lk.function_tool.output',
  'genkit:output', // Genkit
  'mlflow.spanOutputs', // MLflow
]);
/** Whole conversations (the prompt and the answer): both fields. */
const CONVERSATION_KEYS = new Set(['pydantic_ai.all_messages', 'all_messages_events', 'mlflow.chat.messages']);
const OUTPUT_PREFIXES = ['llm.output_messages.', 'gen_ai.completion.'];

function hasPrefix(key: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (key.startsWith(prefix)) return true;
  return false;
}

/** Mastra 1.x: `mastra.<span type>.input` / `.output` (agent runs, workflow steps…). */
function mastraPayload(key: string, suffix: '.input' | '.output'): boolean {
  return key.startsWith('mastra.') && key.endsWith(suffix);
}

/** Field bits of a span or event attribute key (0: plain attribute). */
export function attributeKeyFields(key: string): number {
  if (CONVERSATION_KEYS.has(key)) return FIELD_INPUT | FIELD_OUTPUT;
  if (INPUT_KEYS.has(key) || hasPrefix(key, INPUT_PREFIXES) || mastraPayload(key, '.input')) return FIELD_INPUT;
  if (OUTPUT_KEYS.has(key) || hasPrefix(key, OUTPUT_PREFIXES) || mastraPayload(key, '.output')) return FIELD_OUTPUT;
  return 0;
}

/** GenAI message events, which the normalizer reads as input or output when attributes lack them. */
const EVENT_FIELDS: Readonly<Record<string, number>> = {
  'gen_ai.system.message': FIELD_INPUT,
  'gen_ai.user.message': FIELD_INPUT,
  'gen_ai.assistant.message': FIELD_INPUT,
  'gen_ai.tool.message': FIELD_INPUT,
  'gen_ai.content.prompt': FIELD_INPUT,
  'gen_ai.choice': FIELD_OUTPUT,
  'gen_ai.content.completion': FIELD_OUTPUT,
};

/** Field bits of one attribute of an event: always `events`, plus input/output for message events. */
export function eventAttributeFields(eventName: string, key: string): number {
  return FIELD_EVENTS | (EVENT_FIELDS[eventName] ?? 0) | attributeKeyFields(key);
}
