import { describe, expect, it } from 'vitest';
import { AI_KEYS, DEPLOYMENT_ENVIRONMENT_KEYS, GENAI_KEYS, GENAI_PROMPT_KEYS, GENAI_USAGE_KEYS, GENKIT_KEYS, GOOGLE_ADK_KEYS, keyFamilies, LANGFUSE_KEYS, LIVEKIT_KEYS, LLM_KEYS, MASTRA_KEYS, MLFLOW_KEYS, OPENINFERENCE_KEYS, PLATFORM_KEYS, PYDANTIC_AI_KEYS, TRACELOOP_KEYS } from './key-families.ts';

describe('keyFamilies', () => {
  it('names each family a key starts with', () => {
    expect(keyFamilies({ 'ai.operationId': 'ai.generateText', 'gen_ai.system': 'openai' })).toBe(AI_KEYS | GENAI_KEYS);
    expect(keyFamilies({ 'lk.chat_ctx': '{}', 'langfuse.trace.name': 'x' })).toBe(LIVEKIT_KEYS | LANGFUSE_KEYS);
    expect(keyFamilies({ 'traceloop.span.kind': 'tool', 'llm.request.type': 'chat' })).toBe(TRACELOOP_KEYS | LLM_KEYS);
    expect(keyFamilies({ 'gcp.vertex.agent.llm_request': '{}' })).toBe(GOOGLE_ADK_KEYS);
    expect(keyFamilies({ 'gen_ai.usage.input_tokens': 1 })).toBe(GENAI_KEYS | GENAI_USAGE_KEYS);
    expect(keyFamilies({ 'gen_ai.prompt.0.content': 'hi', 'gen_ai.completion': 'hello' })).toBe(GENAI_KEYS | GENAI_PROMPT_KEYS);
    expect(keyFamilies({ 'gen_ai.prompt': 'hi' })).toBe(GENAI_KEYS | GENAI_PROMPT_KEYS);
    for (const key of ['openinference.span.kind', 'embedding.model_name', 'input.value', 'output.mime_type', 'tool.name', 'tool_call.id', 'agent.name', 'session.id', 'user.id']) {
      expect(keyFamilies({ [key]: 'x' }), key).toBe(OPENINFERENCE_KEYS);
    }
    expect(keyFamilies({ 'mastra.span.type': 'agent_run', 'genkit:type': 'action', 'mlflow.spanType': '"LLM"' })).toBe(MASTRA_KEYS | GENKIT_KEYS | MLFLOW_KEYS);
    for (const key of ['pydantic_ai.all_messages', 'all_messages_events', 'final_result', 'agent_name', 'tool_arguments']) {
      expect(keyFamilies({ [key]: 'x' }), key).toBe(PYDANTIC_AI_KEYS);
    }
    expect(keyFamilies({ platform: 'x', 'deployment.environment.name': 'prod' })).toBe(PLATFORM_KEYS | DEPLOYMENT_ENVIRONMENT_KEYS);
  });

  it('needs the whole prefix: a key that only shares its first letters names no family', () => {
    expect(keyFamilies({ ai: 'x', 'aix.y': 1, llm: 'x', 'lkx.y': 1, 'inputs.value': 'x', gen_ai: 'x', 'gen_aiusage.x': 1, '': 'x' })).toBe(0);
    expect(keyFamilies({ mastra: 'x', 'genkit.type': 'x', final: 'x', agent: 'x', 'deployment.name': 'x', platfor: 'x' })).toBe(0);
    expect(keyFamilies({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage': 1, 'gen_ai.input.messages': '[]' })).toBe(GENAI_KEYS);
  });

  it('answers the same once more distinct keys came than it remembers', () => {
    expect(keyFamilies({ 'ai.model.id': 'x' })).toBe(AI_KEYS);
    for (let i = 0; i < 10_050; i++) expect(keyFamilies({ [`app.key_${i}`]: 1, [`lk.key_${i}`]: 1 })).toBe(LIVEKIT_KEYS);
    expect(keyFamilies({ 'ai.model.id': 'x', 'app.key_3': 1 })).toBe(AI_KEYS);
  });
});
