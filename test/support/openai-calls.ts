/**
 * The calls an application makes with the `openai` SDK, for the instrumentations that
 * patch it (OpenInference, OpenLLMetry, the OpenTelemetry contrib one): a chat, a streamed
 * chat with usage, a tool round trip, an embedding, and a call the endpoint refuses.
 */
import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { EMBEDDING_MODEL, MISSING_MODEL, MODEL, QUESTION, TOOL_RESULT, WEATHER_QUESTION } from './libraries.ts';

export const SYSTEM_PROMPT = 'You are terse.';
const WEATHER_TOOL: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

export function openAiCalls(baseURL: string) {
  const client = new OpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 });
  return {
    chat: () =>
      client.chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: QUESTION },
        ],
      }),
    async stream(): Promise<string> {
      const stream = await client.chat.completions.create({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: QUESTION }] });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    },
    /** The model asks for the tool, the application runs it and sends its result back. */
    async toolRoundTrip(): Promise<string | null> {
      const question = { role: 'user' as const, content: WEATHER_QUESTION };
      const first = await client.chat.completions.create({ model: MODEL, tools: [WEATHER_TOOL], messages: [question] });
      const asked = first.choices[0]!.message;
      const call = asked.tool_calls![0]!;
      const second = await client.chat.completions.create({
        model: MODEL,
        tools: [WEATHER_TOOL],
        messages: [question, asked, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(TOOL_RESULT) }],
      });
      return second.choices[0]!.message.content;
    },
    embed: () => client.embeddings.create({ model: EMBEDDING_MODEL, input: 'sunny day' }),
    fail: () => client.chat.completions.create({ model: MISSING_MODEL, messages: [{ role: 'user', content: QUESTION }] }),
  };
}
