import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, context, trace, type Attributes } from '@opentelemetry/api';
import type { Page, SpanDetail, SpanListItem, TraceListItem } from '../support/api-types.ts';
import { eventually, jsonCall, startTestService, type TestService } from '../support/service.ts';
import { otlpExporter, tracerProvider } from '../support/otel.ts';

// Conversations as three libraries send them, through a stock exporter, read back as the
// text a person reads (trace list, search) and as messages (span detail).
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

async function getJson<T>(path: string): Promise<T> {
  const answer = await jsonCall<T>(svc, path);
  expect(answer.status, `${path}: ${answer.text}`).toBe(200);
  return answer.body;
}

const IMAGE = Buffer.alloc(4096, 7).toString('base64');

/** Records one trace: a root, then one child span per entry, each with its scope and attributes. */
async function record(root: Attributes, children: Array<{ scope: string; name: string; attributes: Attributes }>) {
  const provider = tracerProvider(otlpExporter('json', svc.url, svc.key), { 'service.name': 'messages-test' });
  const rootSpan = provider.getTracer('app').startSpan('handle request', { kind: SpanKind.SERVER, attributes: root });
  const ctx = trace.setSpan(context.active(), rootSpan);
  const ids: string[] = [];
  for (const child of children) {
    const span = provider.getTracer(child.scope).startSpan(child.name, { attributes: child.attributes }, ctx);
    ids.push(span.spanContext().spanId);
    span.end();
  }
  rootSpan.end();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId: rootSpan.spanContext().traceId, ids };
}

describe('span messages', () => {
  it('Vercel AI SDK, OpenInference and Mastra spans read as text and as messages', async () => {
    const { traceId, ids } = await record({ 'input.value': 'Is my receipt valid?', 'output.value': 'Yes, it is valid.' }, [
      {
        scope: 'ai',
        name: 'ai.generateText.doGenerate',
        attributes: {
          'ai.operationId': 'ai.generateText.doGenerate',
          'ai.model.id': 'gpt-4o-mini',
          'ai.model.provider': 'openai.chat',
          'ai.prompt.messages': JSON.stringify([
            { role: 'system', content: 'You check receipts.' },
            { role: 'user', content: [{ type: 'text', text: 'Is this receipt valid?' }, { type: 'file', mediaType: 'image/png', data: IMAGE }] },
          ]),
          'ai.response.toolCalls': JSON.stringify([{ toolCallId: 'call_1', toolName: 'check_receipt', input: { total: 42 } }]),
          'ai.response.finishReason': 'tool-calls',
          'ai.usage.inputTokens': 900,
          'ai.usage.outputTokens': 20,
        },
      },
      {
        scope: '@arizeai/openinference-instrumentation-openai',
        name: 'OpenAI Chat Completions',
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o-mini',
          'input.value': JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Summarise the receipt check' }] }),
          'input.mime_type': 'application/json',
          'output.value': JSON.stringify({ id: 'chatcmpl_1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'The receipt totals 42 EUR and is valid.' }, finish_reason: 'stop' }] }),
          'output.mime_type': 'application/json',
        },
      },
      {
        scope: '@mastra/otel',
        name: 'invoke_agent Receipt Agent',
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'mastra.span.type': 'agent_run',
          'gen_ai.agent.name': 'Receipt Agent',
          'gen_ai.system_instructions': 'You are the receipt agent.',
          'mastra.agent_run.input': JSON.stringify([{ role: 'user', content: 'Check my receipt' }]),
          'mastra.agent_run.output': JSON.stringify({ text: 'Your receipt is valid.' }),
        },
      },
    ]);
    const [vercelId, openInferenceId, mastraId] = ids;

    const vercel = await eventually(async () => {
      const answer = await jsonCall<SpanDetail>(svc, `/api/v1/traces/${traceId}/spans/${vercelId}`);
      return answer.status === 200 ? answer.body : undefined;
    }, 20_000, `span ${vercelId}`);
    expect(vercel.input).toBe('Is this receipt valid?');
    expect(vercel.output).toBe('check_receipt({"total":42})');
    expect(vercel.inputMessages).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'You check receipts.' }] },
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'Is this receipt valid?' },
          { type: 'blob', modality: 'image', size: 4096, mimeType: 'image/png' },
        ],
      },
    ]);
    expect(vercel.outputMessages).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'check_receipt', id: 'call_1', arguments: { total: 42 } }], finishReason: 'tool-calls' },
    ]);
    // The image is not in the messages, but the attribute keeps it as sent.
    expect(JSON.stringify(vercel.inputMessages)).not.toContain(IMAGE.slice(0, 64));
    expect(vercel.attributes['ai.prompt.messages']).toContain(IMAGE);

    const openInference = await getJson<SpanDetail>(`/api/v1/traces/${traceId}/spans/${openInferenceId}`);
    expect(openInference).toMatchObject({ input: 'Summarise the receipt check', output: 'The receipt totals 42 EUR and is valid.' });
    expect(openInference.outputMessages).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'The receipt totals 42 EUR and is valid.' }], finishReason: 'stop' },
    ]);

    const mastra = await getJson<SpanDetail>(`/api/v1/traces/${traceId}/spans/${mastraId}`);
    expect(mastra).toMatchObject({ type: 'agent', input: 'Check my receipt', output: 'Your receipt is valid.' });
    expect(mastra.systemInstructions).toEqual([{ type: 'text', content: 'You are the receipt agent.' }]);

    // Search reads the readable text, not the request bodies.
    const found = await getJson<Page<SpanListItem>>(`/api/v1/traces/spans?traceId=${traceId}&search=${encodeURIComponent('totals 42 EUR')}`);
    expect(found.data.map((s) => s.spanId)).toEqual([openInferenceId]);
    const list = await getJson<Page<TraceListItem>>('/api/v1/traces?limit=10');
    expect(list.data.find((t) => t.traceId === traceId)).toMatchObject({ input: 'Is my receipt valid?', output: 'Yes, it is valid.' });
  });
});
