// Normalization cost per span, alone: decode once, then time the writer's pure transform
// (spanRowsFromExport, then encodeSpanRowsRowBinary, as ingest encodes) over the same pool of spans, many times.
// Two pools: the ingest benchmark's agent runs (GenAI semconv), and one span of each common
// convention shape (Vercel AI SDK, OpenInference, OpenLLMetry, GenAI events), so a change to
// one reader shows. Usage: node --import tsx bench/normalize-bench.ts   (NORMALIZE_ROUNDS=…)
import { decodeProtobufExport, type OtlpTraceExport } from '@aos/otlp';
import { loadPriceTable, spanRowsFromExport } from '@aos/domain';
import { encodeSpanRowsRowBinary } from '@aos/storage';
import { agentRequest } from './agent-spans.ts';
import { mixedExport } from './mixed-spans.ts';

const ROUNDS = Number(process.env.NORMALIZE_ROUNDS ?? 20);
const prices = loadPriceTable();
const ctx = { projectId: 'bench', receivedAtMs: Date.now(), prices, maxValueBytes: 262_144 };

function time(label: string, batches: OtlpTraceExport[]): void {
  const spans = batches.reduce((n, b) => n + b.resourceSpans.reduce((m, r) => m + r.scopeSpans.reduce((k, s) => k + s.spans.length, 0), 0), 0);
  // Warm up the JIT on the same work first.
  for (const b of batches) encodeSpanRowsRowBinary(spanRowsFromExport(b, ctx));
  let normalizeMs = 0;
  let encodeMs = 0;
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of batches) {
      const t0 = performance.now();
      const rows = spanRowsFromExport(b, ctx);
      const t1 = performance.now();
      bytes += encodeSpanRowsRowBinary(rows).length;
      encodeMs += performance.now() - t1;
      normalizeMs += t1 - t0;
    }
  }
  const per = (ms: number) => ((ms * 1000) / (spans * ROUNDS)).toFixed(2);
  console.log(
    `${label}: ${spans} spans x ${ROUNDS} rounds: normalize ${per(normalizeMs)} µs/span, encode ${per(encodeMs)} µs/span, ` +
      `together ${per(normalizeMs + encodeMs)} µs/span; encoded row ${(bytes / (spans * ROUNDS)).toFixed(0)} B/span`,
  );
}

const agentBatches = Array.from({ length: 20 }, (_, i) => decodeProtobufExport(agentRequest(1000, 500_000 + i).body));
time('agent runs (GenAI semconv, ingest bench pool)', agentBatches);
time('mixed conventions (Vercel, OpenInference, OpenLLMetry, Traceloop, GenAI events)', [mixedExport(2000)]);
