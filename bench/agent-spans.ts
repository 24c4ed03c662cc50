import { randomBytes } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type HrTime } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

const resource = resourceFromAttributes({
  'service.name': 'support-agent',
  'service.version': '3.4.1',
  'deployment.environment.name': 'production',
  'telemetry.sdk.language': 'nodejs',
});
const scope = { name: 'agent-bench', version: '1.0.0' };

const QUESTION =
  'My order A-1042 was supposed to arrive on Tuesday but the tracking page has not changed for three days. ' +
  'Can you check where it is and whether I can still get it before the weekend? I also need the invoice.';
const ANSWER =
  'I checked order A-1042: it left the Leipzig warehouse on Monday and is now with the regional carrier. ' +
  'Delivery is planned for Friday before noon. I have attached the invoice and set up a delivery alert for you.';

function hr(ms: number): HrTime {
  const s = Math.floor(ms / 1000);
  return [s, Math.round((ms - s * 1000) * 1e6)];
}

function span(
  traceId: string,
  parent: string | undefined,
  name: string,
  kind: SpanKind,
  startMs: number,
  durationMs: number,
  attributes: Attributes,
  error = false,
): ReadableSpan {
  const spanId = randomBytes(8).toString('hex');
  return {
    name,
    kind,
    spanContext: () => ({ traceId, spanId, traceFlags: TraceFlags.SAMPLED }),
    parentSpanContext: parent ? { traceId, spanId: parent, traceFlags: TraceFlags.SAMPLED } : undefined,
    startTime: hr(startMs),
    endTime: hr(startMs + durationMs),
    duration: hr(durationMs),
    status: error ? { code: SpanStatusCode.ERROR, message: 'tool timed out after 10s' } : { code: SpanStatusCode.OK },
    attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * One agent run of 10 spans, shaped like real GenAI traffic: an agent root, three model
 * calls with prompts, completions and token usage, tool calls with arguments, a retrieval.
 */
function agentRun(startMs: number, runIndex: number): ReadableSpan[] {
  const traceId = randomBytes(16).toString('hex');
  const session = `session-${runIndex % 500}`;
  const user = `user-${runIndex % 1200}`;
  const root = span(traceId, undefined, 'invoke_agent support-agent', SpanKind.SERVER, startMs, 4200, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'support-agent',
    'gen_ai.conversation.id': session,
    'user.id': user,
    // One run in ten carries contact details, for the masking phase to find.
    'input.value': runIndex % 10 === 0 ? `${QUESTION} Reach me at jane.doe@example.com or +44 20 7946 0958.` : QUESTION,
    'output.value': ANSWER,
  });
  const rootId = root.spanContext().spanId;
  const out: ReadableSpan[] = [root];
  const llm = (offset: number, prompt: string, completion: string) =>
    span(traceId, rootId, 'chat gpt-4o', SpanKind.CLIENT, startMs + offset, 900, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 1024,
      'gen_ai.usage.input_tokens': 1800 + (runIndex % 700),
      'gen_ai.usage.output_tokens': 240 + (runIndex % 90),
      'gen_ai.usage.cache_read_input_tokens': 1024,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.response.id': `chatcmpl-${runIndex}-${offset}`,
      'gen_ai.input.messages': JSON.stringify([
        { role: 'system', parts: [{ type: 'text', content: 'You are a helpful support agent for an online shop.' }] },
        { role: 'user', parts: [{ type: 'text', content: prompt }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: completion }] }]),
    });
  const tool = (offset: number, name: string, args: string, error = false) =>
    span(traceId, rootId, `execute_tool ${name}`, SpanKind.INTERNAL, startMs + offset, 300, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': `call_${runIndex}_${offset}`,
      'gen_ai.tool.call.arguments': args,
      'output.value': error ? '' : '{"status":"in_transit","carrier":"DHL","eta":"2026-11-27"}',
    }, error);
  out.push(llm(50, QUESTION, 'Let me look up the order.'));
  out.push(tool(1000, 'lookup_order', '{"orderId":"A-1042"}'));
  out.push(tool(1350, 'track_shipment', '{"trackingId":"JD014600003828"}', runIndex % 50 === 0));
  out.push(
    span(traceId, rootId, 'retrieve policies', SpanKind.INTERNAL, startMs + 1700, 120, {
      'openinference.span.kind': 'RETRIEVER',
      'input.value': 'delivery delay policy weekend',
      'retrieval.documents.0.document.content': 'Orders delayed by more than 2 days qualify for express re-delivery.',
      'retrieval.documents.0.document.score': 0.82,
    }),
  );
  out.push(llm(1850, 'Summarize the shipment status for the customer.', ANSWER));
  out.push(tool(2800, 'get_invoice', '{"orderId":"A-1042","format":"pdf"}'));
  out.push(tool(3100, 'create_alert', '{"orderId":"A-1042","channel":"email"}'));
  out.push(tool(3300, 'send_message', '{"to":"customer","template":"shipment_update"}'));
  out.push(llm(3350, 'Write the final answer.', ANSWER));
  return out;
}

/** A request of `spans` spans (whole agent runs) as the OTLP proto exporter sends it. */
export function agentRequest(spans: number, seed: number): { body: Uint8Array; spans: number } {
  const all: ReadableSpan[] = [];
  const now = Date.now() - 60_000;
  for (let run = 0; all.length < spans; run++) all.push(...agentRun(now + run, seed * 1000 + run));
  const body = ProtobufTraceSerializer.serializeRequest(all.slice(0, spans));
  if (!body) throw new Error('serializer returned nothing');
  return { body, spans: Math.min(spans, all.length) };
}
