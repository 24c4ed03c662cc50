// What the engine benchmarks share: the realistic span rows they write (bench/agent-spans.ts
// → decode → spanRowsFromExport, as the writer gets them) and how they read CPU.
import { loadPriceTable, spanRowsFromExport, type SpanRow } from '@aos/domain';
import { decodeProtobufExport } from '@aos/otlp';
import { agentRequest } from './agent-spans.ts';

/** `requests` requests of 1,000 agent spans as normalized rows of project `engine`; `seed` picks the traces. */
export function realisticRows(requests: number, seed: number): SpanRow[] {
  const prices = loadPriceTable();
  const rows: SpanRow[] = [];
  for (let i = 0; i < requests; i++) {
    const decoded = decodeProtobufExport(agentRequest(1000, seed + i).body);
    rows.push(...spanRowsFromExport(decoded, { projectId: 'engine', receivedAtMs: Date.now(), prices, maxValueBytes: 262_144 }));
  }
  return rows;
}

/** The whole process's CPU so far, in µs (chDB's threads run in it). */
export const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
