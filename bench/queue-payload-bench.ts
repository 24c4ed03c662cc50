// CPU of the two halves of the ingest path, per 1,000 spans, for the two queue payloads:
// the decoded export (queued before issue 21; the writer validates, normalizes and encodes)
// and ready-to-insert rows (ingest normalizes and encodes; the writer checks a few fields).
// Each side includes the JSON encoding BullMQ applies on add and the parse on the writer's
// take. Rounds alternate export, rows, export, rows on one thread, so machine load hits both.
// Usage: node --import tsx bench/queue-payload-bench.ts   (PAYLOAD_REQUESTS=…, PAYLOAD_ROUNDS=…)
import { loadPriceTable } from '@aos/domain';
import { readExport } from '@aos/otlp';
import type { SpanBatchPayload, SpanRowsPayload } from '@aos/queue';
import { readSpanRows } from '../apps/ingest/src/pipeline/span-rows.ts';
import { createSpanBatchEncoder } from '../apps/writer/src/span-batch-encoder.ts';
import { agentRequest } from './agent-spans.ts';

const REQUESTS = Number(process.env.PAYLOAD_REQUESTS ?? 20);
const ROUNDS = Number(process.env.PAYLOAD_ROUNDS ?? 4);
const LIMITS = { maxAttributes: 1024, maxEvents: 1024, maxLinks: 128, maxValueLength: 1 << 20, maxValueDepth: 16 };
const prices = loadPriceTable();
const writerJob = createSpanBatchEncoder({ prices, maxValueBytes: 262_144 });
const bodies = Array.from({ length: REQUESTS }, (_, i) => agentRequest(1000, 700_000 + i));
const spans = bodies.reduce((n, b) => n + b.spans, 0);

/** Ingest's half: body → JSON job data, as BullMQ stores it. */
const ingest = {
  export(body: Uint8Array, receivedAtMs: number): string {
    const read = readExport(body, 'protobuf', { nowUnixNano: BigInt(receivedAtMs) * 1_000_000n, limits: LIMITS });
    if (!read.ok) throw new Error(read.message);
    const payload: SpanBatchPayload = { projectId: 'bench', receivedAtMs, export: read.accepted };
    return JSON.stringify(payload);
  },
  rows(body: Uint8Array, receivedAtMs: number): string {
    const input = { body, encoding: 'protobuf' as const, limits: LIMITS, projectId: 'bench', receivedAtMs, dimensionKeys: [], maxValueBytes: 262_144 };
    const read = readSpanRows(input, null, prices);
    if (!read.ok || !read.batch) throw new Error('no rows');
    const { chunk, rows, deploymentIds, traceIds, telemetryScores } = read.batch;
    const payload: SpanRowsPayload = { projectId: 'bench', receivedAtMs, rows: chunk, rowCount: rows, deploymentIds, traceIds, telemetryScores };
    return JSON.stringify(payload);
  },
};

function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

type Shape = keyof typeof ingest;
const totals: Record<Shape, { ingest: number; writer: number; bytes: number; rounds: number }> = {
  export: { ingest: 0, writer: 0, bytes: 0, rounds: 0 },
  rows: { ingest: 0, writer: 0, bytes: 0, rounds: 0 },
};
for (let round = 0; round < ROUNDS * 2; round++) {
  const shape: Shape = round % 2 === 0 ? 'export' : 'rows';
  const jobs: string[] = [];
  const receivedAtMs = Date.now();
  totals[shape].ingest += cpuMs(() => {
    for (const b of bodies) jobs.push(ingest[shape](b.body, receivedAtMs));
  });
  totals[shape].writer += cpuMs(() => {
    for (const job of jobs) writerJob(JSON.parse(job));
  });
  totals[shape].bytes += jobs.reduce((n, j) => n + Buffer.byteLength(j), 0);
  totals[shape].rounds += 1;
}

console.log(`${spans} spans in ${REQUESTS} requests of 1000, ${ROUNDS} rounds per payload, alternating`);
console.log('| payload | ingest CPU ms / 1,000 spans | writer CPU ms / 1,000 spans | total | queued bytes / span |');
for (const shape of ['export', 'rows'] as const) {
  const t = totals[shape];
  const per = (ms: number) => ms / t.rounds / (spans / 1000);
  console.log(`| ${shape} | ${per(t.ingest).toFixed(1)} | ${per(t.writer).toFixed(1)} | ${per(t.ingest + t.writer).toFixed(1)} | ${(t.bytes / t.rounds / spans).toFixed(0)} |`);
}
const ratio = (k: 'ingest' | 'writer') => (totals.rows[k] / totals.rows.rounds / (totals.export[k] / totals.export.rounds)).toFixed(2);
console.log(`rows / export: ingest ${ratio('ingest')}×, writer ${ratio('writer')}×`);
