// What one of bench:fuzz's costliest bodies (100,000 attributes as OTLP/JSON, 5 MB) costs to
// turn into rows, by stage, on this thread: to tell its slow answers under load from its CPU.
// node --max-semi-space-size=64 --import tsx bench/decode-stages.ts
import { ingestSettings } from '@aos/config';
import { loadPrices } from '@aos/domain';
import { readExport } from '@aos/otlp';
import { readSpanRows } from '../apps/ingest/src/pipeline/span-rows.ts';
import { widestJsonBody } from '../test/support/otlp-fuzz.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const body = widestJsonBody();
const limits = ingestSettings({}).limits;
const prices = loadPrices(undefined);
const stages: Record<string, () => unknown> = {
  'JSON.parse of the text': () => JSON.parse(Buffer.from(body).toString()),
  'readExport (decode, validate, limit)': () => readExport(body, 'json', { nowUnixNano: BigInt(Date.now()) * 1_000_000n, limits }),
  'readSpanRows (all of it, rows encoded)': () =>
    readSpanRows({ body, encoding: 'json', limits, projectId: 'bench', receivedAtMs: Date.now(), dimensionKeys: [], maxValueBytes: 65_536 }, null, prices),
};
console.log(`${(body.byteLength / 1024 / 1024).toFixed(1)} MB body, ${ROUNDS} rounds, median per stage:`);
for (const [name, run] of Object.entries(stages)) {
  const times = Array.from({ length: ROUNDS }, () => {
    const started = performance.now();
    run();
    return performance.now() - started;
  }).sort((a, b) => a - b);
  console.log(`  ${name}: ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms`);
}
