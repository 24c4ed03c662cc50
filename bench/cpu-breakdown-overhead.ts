// What the CPU breakdown costs: the end-to-end phase of the ingest benchmark run alternately
// without and with it (A, B, A, B… in one process, each run into a project of its own), so
// both meet the same machine load and table size. Prints each rate and the ratio of the means.
//   node --import tsx bench/cpu-breakdown-overhead.ts   (BENCH_ROUNDS=2 BENCH_REQUESTS=20 BENCH_CPU_SAMPLING_US=1000)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { findFreePort } from '@aos/local-services';
import { silentLogger } from '@aos/log';
import { startAllInOne } from '@aos/server';
import { createApiKey } from '@aos/storage';
import { startCpuBreakdown } from './cpu-breakdown.ts';
import { endToEnd, startSender } from './ingest-phases.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 4);
const POOL_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);

const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-bench-'));
const service = await startAllInOne({ DATA_DIR: dataDir, PORT: '0', OTLP_GRPC_PORT: String(await findFreePort()), LOG_LEVEL: 'warn' }, silentLogger);
const senders = Array.from({ length: SENDERS }, (_, i) => startSender(i, POOL_REQUESTS));
try {
  const totalSpans = (await Promise.all(senders.map((s) => s.ready))).reduce((n, p) => n + p.spans, 0);
  const rates = { without: [] as number[], with: [] as number[] };
  for (let round = 0; round < ROUNDS * 2; round++) {
    const profiled = round % 2 === 1;
    const projectId = `overhead-${round}`;
    const key = (await createApiKey(service.storage, { projectId, name: 'bench', scopes: ['ingest'] })).secret;
    const cpu = profiled ? await startCpuBreakdown({ senderPids: senders.map((s) => s.child.pid!) }) : undefined;
    const run = await endToEnd(senders, { transport: 'http', url: service.url, grpcAddress: service.grpcAddress!, key }, service.storage, projectId, totalSpans);
    await cpu?.stop(totalSpans);
    (profiled ? rates.with : rates.without).push(run.rate);
    console.log(`${profiled ? 'with' : 'without'} the breakdown: ${Math.round(run.rate)} spans/s (load average ${loadavg()[0]!.toFixed(1)})`);
  }
  const mean = (xs: number[]) => xs.reduce((n, x) => n + x, 0) / xs.length;
  console.log(`end to end with / without the breakdown: ${((mean(rates.with) / mean(rates.without)) * 100).toFixed(0)} % (${totalSpans} spans per run, ${ROUNDS} runs each)`);
} finally {
  for (const s of senders) s.child.kill();
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
