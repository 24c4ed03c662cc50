// Micro benchmark of masking on the ingest hot path:
//   node --import tsx packages/masking/bench/mask-bench.ts
// Two workloads, each timed as "decode only" (the baseline) and "decode + maskExport":
//   ingest: the 1,000-span protobuf request of the ingest benchmark (bench/agent-spans.ts);
//   heavy:  1,000 spans with ~2 KB input and output each, 20 attributes, 3 % carrying PII.
// Masking mutates the export, so every iteration decodes a fresh copy.
import { decodeJsonExport, decodeProtobufExport, type Attributes, type OtlpSpan, type OtlpTraceExport } from '@aos/otlp';
import { agentRequest } from '../../../bench/agent-spans.ts';
import { DETECTOR_NAMES, compilePolicy, maskExport, parsePolicy } from '../src/index.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

// A realistic policy: every built-in on input, output, events and status messages,
// plus two custom rules (one scoped to user.* attributes).
const policy = compilePolicy(
  parsePolicy({
    rules: [
      ...DETECTOR_NAMES.map((detector) => ({
        name: detector.replaceAll('_', '-'),
        detector,
        replacement: detector === 'credit_card' ? { style: 'keep_last', n: 4 } : detector === 'email' ? { style: 'hash' } : { style: 'type_tag' },
        fields: { input: true, output: true, events: true, statusMessage: true },
      })),
      { name: 'employee-id', pattern: '\\bEMP-\\d{6}\\b', fields: { input: true, output: true } },
      { name: 'user-attributes', detector: 'email', fields: { attributes: ['user.*', 'enduser.*'] } },
    ],
  }),
  { hashKey: 'bench-project-key' },
);

/** Deterministic pseudo-random numbers, so every run masks the same data. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Agent-like text: prose with the numbers, dates, versions, ids, times and paths
// that the detectors must leave alone.
const SENTENCES = [
  'I checked order A-1042 and it left the warehouse on 2026-11-20 at 14:32:05.',
  'The deployment of version 3.12.4 finished in 1.8 seconds with exit code 0.',
  'Request 550e8400-e29b-41d4-a716-446655440000 returned 200 after 132 ms.',
  'Please summarise the ticket and propose the next step for the customer.',
  'The tool call get_weather returned {"temp": 21.5, "unit": "C", "city": "Paris"}.',
  'According to the policy, orders delayed by more than 2 days qualify for re-delivery.',
  'Stack trace: at handler (src/routes/orders.ts:118:23) at process (node:internal/17:3).',
  'Total: 3 items, subtotal 129.90 EUR, VAT 24.98 EUR, shipping 4.99 EUR.',
  'The user asked: "Can you reschedule the meeting to Thursday 10:30 instead?"',
  'Retrieved 5 documents with scores 0.82, 0.79, 0.75, 0.61 and 0.44 from the index.',
];
const PII = [
  'You can reach me at jane.doe@example.com or +44 20 7946 0958.',
  'My card is 4111 1111 1111 1111 and my IBAN is DE89 3704 0044 0532 0130 00.',
  'Use the key sk-proj-AbC123dEf456GhI789jKl012MnO345 with Authorization: Bearer abc123DEF456ghi789JKL.',
  'My SSN is 123-45-6789 and I connect from 192.168.1.20.',
];

function text(next: () => number, bytes: number, withPii: boolean): string {
  let out = '';
  while (out.length < bytes) out += SENTENCES[Math.floor(next() * SENTENCES.length)] + ' ';
  if (withPii) {
    const at = Math.floor(next() * out.length);
    out = out.slice(0, at) + ' ' + PII[Math.floor(next() * PII.length)] + ' ' + out.slice(at);
  }
  return out;
}

function heavySpan(i: number, next: () => number): OtlpSpan {
  const pii = next() < 0.03;
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.response.model': 'gpt-4o-2024-08-06',
    'gen_ai.request.temperature': 0.2,
    'gen_ai.request.max_tokens': 1024,
    'gen_ai.usage.input_tokens': 1800 + i,
    'gen_ai.usage.output_tokens': 240,
    'gen_ai.response.id': `chatcmpl-${i}`,
    'gen_ai.response.finish_reasons': ['stop'],
    'gen_ai.conversation.id': `session-${i % 500}`,
    'user.id': `user-${i % 1200}`,
    'user.email': pii ? 'jane.doe@example.com' : '',
    'http.url': `https://api.example.com/v1/orders/${i}?page=2`,
    'server.address': 'api.openai.com',
    'server.port': 443,
    'deployment.version': '3.12.4',
    'app.request_id': `req_${(i * 7919).toString(36)}`,
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: text(next, 2000, pii) }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text(next, 2000, false) }] }]),
  };
  return {
    traceId: i.toString(16).padStart(32, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    parentSpanId: '',
    traceState: '',
    name: 'chat gpt-4o',
    kind: 3,
    startTimeUnixNano: '1764000000000000000',
    endTimeUnixNano: '1764000000900000000',
    attributes,
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    status: { code: 0, message: '' },
  };
}

function heavyExport(): OtlpTraceExport {
  const next = random(42);
  const spans = Array.from({ length: 1000 }, (_, i) => heavySpan(i, next));
  return { resourceSpans: [{ resource: { attributes: { 'service.name': 'support-agent' } }, scopeSpans: [{ scope: { name: 'bench', version: '1' }, spans }] }] };
}

/** The OTLP/JSON form of an export (what an exporter would post), for the JSON decoder. */
function anyValue(value: unknown): object {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  return { kvlistValue: { values: keyValues(value as Attributes) } };
}
const keyValues = (attributes: Attributes) => Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
function otlpJson(batch: OtlpTraceExport): string {
  return JSON.stringify({
    resourceSpans: batch.resourceSpans.map((r) => ({
      resource: { attributes: keyValues(r.resource.attributes) },
      scopeSpans: r.scopeSpans.map((s) => ({
        scope: s.scope,
        spans: s.spans.map((span) => ({ ...span, attributes: keyValues(span.attributes), events: [], links: [] })),
      })),
    })),
  });
}

function run(name: string, decode: () => OtlpTraceExport, spans: number, bytes: number): void {
  const time = (mask: boolean): number => {
    let iterations = 0;
    let busy = 0;
    const until = performance.now() + SECONDS * 1000;
    while (performance.now() < until) {
      const started = performance.now();
      const batch = decode();
      if (mask) maskExport(batch, policy);
      busy += performance.now() - started;
      iterations++;
    }
    return busy / iterations;
  };
  time(true); // warm-up: compile regexes, fill caches
  const baseline = time(false);
  const masked = time(true);
  const maskOnly = masked - baseline;
  const sample = decode();
  const report = maskExport(sample, policy);
  const mb = bytes / 1e6;
  console.log(
    `${name}: ${spans} spans, ${(bytes / spans).toFixed(0)} B of attribute text per span; masked ${report.spans.length} spans (${report.matches} matches)\n` +
      `  decode only        ${baseline.toFixed(2)} ms/batch  ${((spans / baseline) * 1000).toFixed(0)} spans/s\n` +
      `  decode + mask      ${masked.toFixed(2)} ms/batch  ${((spans / masked) * 1000).toFixed(0)} spans/s  (${((masked / baseline) * 100).toFixed(0)} % of the baseline time)\n` +
      `  masking alone      ${maskOnly.toFixed(2)} ms/batch  ${((spans / maskOnly) * 1000).toFixed(0)} spans/s  ${(mb / (maskOnly / 1000)).toFixed(0)} MB/s`,
  );
}

function textBytes(batch: OtlpTraceExport): number {
  let bytes = 0;
  const count = (value: unknown): void => {
    if (typeof value === 'string') bytes += value.length;
    else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) count(v);
  };
  for (const r of batch.resourceSpans) for (const s of r.scopeSpans) for (const span of s.spans) count(span.attributes);
  return bytes;
}

const ingest = agentRequest(1000, 1);
run('ingest', () => decodeProtobufExport(ingest.body), ingest.spans, textBytes(decodeProtobufExport(ingest.body)));

const heavy = heavyExport();
const heavyJson = otlpJson(heavy);
run('heavy', () => decodeJsonExport(heavyJson), 1000, textBytes(heavy));
