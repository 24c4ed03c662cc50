// One span of each common convention shape (Vercel AI SDK, OpenInference, OpenLLMetry,
// Traceloop, GenAI events), as each library shapes it: the benchmarks' mixed pool.
import type { OtlpSpan, OtlpTraceExport } from '@aos/otlp';

const START = BigInt(Date.now() - 60_000) * 1_000_000n;
function span(i: number, name: string, attributes: OtlpSpan['attributes'], events: OtlpSpan['events'] = []): OtlpSpan {
  const start = START + BigInt(i) * 1_000_000n;
  return {
    traceId: (i + 1).toString(16).padStart(32, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    parentSpanId: '',
    traceState: '',
    name,
    kind: 3,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + 900_000_000n).toString(),
    attributes,
    droppedAttributesCount: 0,
    events,
    droppedEventsCount: 0,
    links: [],
    status: { code: 1, message: '' },
  };
}

const QUESTION = 'My order A-1042 has not moved for three days. Where is it, and can I still get it before the weekend?';
const ANSWER = 'It left the Leipzig warehouse on Monday and is planned for Friday before noon. I set up a delivery alert.';

/** One span per convention, as each library shapes it. */
function mixedSpans(i: number): OtlpSpan[] {
  return [
    span(i * 5, 'ai.generateText.doGenerate', {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.model.id': 'gpt-4o-mini',
      'ai.model.provider': 'openai.chat',
      'ai.prompt.messages': JSON.stringify([
        { role: 'system', content: 'You are a support agent.' },
        { role: 'user', content: [{ type: 'text', text: QUESTION }] },
      ]),
      'ai.response.text': ANSWER,
      'ai.usage.inputTokens': 1200,
      'ai.usage.outputTokens': 90,
      'gen_ai.system': 'openai.chat',
      'gen_ai.request.model': 'gpt-4o-mini',
    }),
    span(i * 5 + 1, 'ChatOpenAI', {
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o',
      'llm.provider': 'openai',
      'input.value': JSON.stringify({ messages: [{ role: 'user', content: QUESTION }], model: 'gpt-4o' }),
      'input.mime_type': 'application/json',
      'output.value': JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }] }),
      'output.mime_type': 'application/json',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': QUESTION,
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': ANSWER,
      'llm.token_count.prompt': 1100,
      'llm.token_count.completion': 80,
    }),
    span(i * 5 + 2, 'openai.chat', {
      'llm.request.type': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': QUESTION,
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': ANSWER,
      'gen_ai.usage.prompt_tokens': 1000,
      'gen_ai.usage.completion_tokens': 70,
    }),
    span(i * 5 + 3, 'support.workflow', {
      'traceloop.span.kind': 'workflow',
      'traceloop.entity.name': 'support',
      'traceloop.entity.input': JSON.stringify({ args: [QUESTION], kwargs: {} }),
      'traceloop.entity.output': JSON.stringify(ANSWER),
    }),
    span(
      i * 5 + 4,
      'chat gpt-4o',
      { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 900, 'gen_ai.usage.output_tokens': 60 },
      [
        { name: 'gen_ai.user.message', timeUnixNano: START.toString(), attributes: { content: QUESTION } },
        { name: 'gen_ai.choice', timeUnixNano: START.toString(), attributes: { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: ANSWER } } },
      ],
    ),
  ];
}

export function mixedExport(runs: number): OtlpTraceExport {
  const spans = Array.from({ length: runs }, (_, i) => mixedSpans(i)).flat();
  return { resourceSpans: [{ resource: { attributes: { 'service.name': 'bench' } }, scopeSpans: [{ scope: { name: 'bench', version: '1' }, spans }] }] };
}

