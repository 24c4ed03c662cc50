/**
 * What the real-library tests share: one conversation the fake OpenAI endpoint plays (a
 * question answered, a weather question answered by a tool call then by the tool's
 * result, a model that does not exist), a service and a tracer provider exporting to it
 * through the stock OTLP exporter, and the spans of a trace read back through the API.
 */
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { SpanDetail, TraceDetail, SpanNode } from './api-types.ts';
import { startFakeOpenAI, type FakeAnswer, type FakeOpenAI, type FakeRequest, type FakeUsage } from './fake-openai.ts';
import { otlpExporter, tracerProvider } from './otel.ts';
import { eventually, jsonCall, startTestService, type TestService } from './service.ts';

export const MODEL = 'gpt-4o-mini';
export const EMBEDDING_MODEL = 'text-embedding-3-small';
/** A model the fake refuses with OpenAI's 404 error body. */
export const MISSING_MODEL = 'missing-model';
export const QUESTION = 'What is the capital of France?';
export const ANSWER = 'Paris is the capital of France.';
export const WEATHER_QUESTION = 'What is the weather in Paris?';
export const WEATHER_ANSWER = 'It is sunny in Paris, 21°C.';
export const TOOL_CALL = { id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
export const TOOL_RESULT = { city: 'Paris', forecast: 'sunny, 21°C' };

/** Every answer reports cached prompt tokens and reasoning tokens, as OpenAI's usage does. */
export const USAGE: FakeUsage = {
  prompt_tokens: 120,
  completion_tokens: 20,
  total_tokens: 140,
  prompt_tokens_details: { cached_tokens: 64 },
  completion_tokens_details: { reasoning_tokens: 8 },
};
/** gpt-4o-mini at 0.15 / 0.075 (cached) / 0.60 USD per million tokens: 56 fresh + 64 cached input, 20 output. */
export const CALL_COST = (56 * 0.15 + 64 * 0.075 + 20 * 0.6) / 1e6;
/** The same usage with the cached tokens billed as fresh input (for libraries that do not send them). */
export const CALL_COST_UNCACHED = (120 * 0.15 + 20 * 0.6) / 1e6;

function weatherAnswer(request: FakeRequest): FakeAnswer {
  if (request.model === MISSING_MODEL) return { status: 404 };
  if (request.messages.at(-1)?.role === 'tool') return { reply: WEATHER_ANSWER, usage: USAGE };
  if (Array.isArray(request.body['tools'])) return { toolCalls: [TOOL_CALL], usage: USAGE };
  return { reply: ANSWER, usage: USAGE };
}

export interface LibraryHarness {
  svc: TestService;
  fake: FakeOpenAI;
  provider: BasicTracerProvider;
  /** Runs `scenario` under a root span of the application's own and answers its trace id. */
  inTrace(name: string, scenario: (tracer: Tracer) => Promise<unknown>): Promise<string>;
  /** The spans of a trace once `count` have arrived, in full (span detail), by start time;
   *  `flush` runs before each look (an exporter of the library's own to push along). */
  spans(traceId: string, count: number, flush?: () => Promise<void>): Promise<SpanDetail[]>;
  stop(): Promise<void>;
}

function flatten(nodes: SpanNode[]): SpanNode[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children)]);
}

export async function startLibraryHarness(serviceName: string): Promise<LibraryHarness> {
  // Libraries nest their spans through the active context, as in an application with the Node SDK.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const [svc, fake] = await Promise.all([startTestService(), startFakeOpenAI(weatherAnswer)]);
  const provider = tracerProvider(otlpExporter('proto', svc.url, svc.key), { 'service.name': serviceName });
  const appTracer = provider.getTracer('app');
  return {
    svc,
    fake,
    provider,
    async inTrace(name, scenario) {
      const root = appTracer.startSpan(name);
      try {
        await context.with(trace.setSpan(context.active(), root), () => scenario(appTracer)).catch(() => undefined);
      } finally {
        root.end();
      }
      await provider.forceFlush();
      return root.spanContext().traceId;
    },
    async spans(traceId, count, flush) {
      const nodes = await eventually(
        async () => {
          await flush?.();
          const answer = await jsonCall<TraceDetail>(svc, `/api/v1/traces/${traceId}`);
          if (answer.status !== 200) return undefined;
          const all = flatten(answer.body.spans);
          return all.length >= count ? all : undefined;
        },
        20_000,
        `${count} spans of trace ${traceId}`,
      );
      const details = await Promise.all(nodes.map(async (node) => (await jsonCall<SpanDetail>(svc, `/api/v1/traces/${traceId}/spans/${node.spanId}`)).body));
      return details.sort((a, b) => a.startTime.localeCompare(b.startTime));
    },
    async stop() {
      await provider.shutdown();
      await Promise.all([svc.stop(), fake.close()]);
      context.disable();
      contextManager.disable();
    },
  };
}

/** The one span of `spans` with that name (fails the test when there is not exactly one). */
export function spanNamed(spans: SpanDetail[], name: string): SpanDetail {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`expected one span named ${name}, found ${found.length} among ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}
