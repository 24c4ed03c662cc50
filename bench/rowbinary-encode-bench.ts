// Row encoding alone (RowBinary, as ingest's decode threads write it), old encoder against
// new in one run: the same rows, alternated round by round so both see the same machine
// load, timed in CPU time of this process. Usage: node --import tsx bench/rowbinary-encode-bench.ts   (ENCODE_ROUNDS=…)
import { decodeProtobufExport } from '@aos/otlp';
import { loadPriceTable, spanRowsFromExport, type SpanRow } from '@aos/domain';
import { encodeSpanRowsRowBinary } from '@aos/storage';
import { agentRequest } from './agent-spans.ts';
import { encodeSpanRowsRowBinaryOld } from './rowbinary-old/span-rowbinary.ts';
import { mixedExport } from './mixed-spans.ts';

const ROUNDS = Number(process.env.ENCODE_ROUNDS ?? 20);
const ctx = { projectId: 'bench', receivedAtMs: Date.now(), prices: loadPriceTable(), maxValueBytes: 262_144 };

function compare(label: string, batches: SpanRow[][]): void {
  const spans = batches.reduce((n, b) => n + b.length, 0);
  for (const b of batches) {
    if (!encodeSpanRowsRowBinaryOld(b).equals(encodeSpanRowsRowBinary(b))) throw new Error(`${label}: the encoders' bytes differ`);
  }
  const ms = { old: 0, new: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, encode] of [['old', encodeSpanRowsRowBinaryOld], ['new', encodeSpanRowsRowBinary]] as const) {
      const before = process.cpuUsage();
      for (const b of batches) encode(b);
      const cpu = process.cpuUsage(before);
      ms[name] += (cpu.user + cpu.system) / 1000;
    }
  }
  const per = (t: number) => (t * 1000) / (spans * ROUNDS);
  console.log(
    `${label}: ${spans} spans x ${ROUNDS} rounds, same bytes: old ${per(ms.old).toFixed(2)} µs/span, ` +
      `new ${per(ms.new).toFixed(2)} µs/span, new/old ${(ms.new / ms.old).toFixed(2)}`,
  );
}

const agentRows = Array.from({ length: 20 }, (_, i) => spanRowsFromExport(decodeProtobufExport(agentRequest(1000, 500_000 + i).body), ctx));
compare('encode, agent runs (ingest bench pool)', agentRows);
compare('encode, mixed conventions', [spanRowsFromExport(mixedExport(2000), ctx)]);
