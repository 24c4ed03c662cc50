// One run of bench/ack-levers.ts: a fresh all-in-one service with the variant's settings
// (the environment), a short warm-up, then BENCH_LEVER_SECONDS of paced load at
// BENCH_LEVER_RATE spans/s; prints one JSON line of figures for the parent to collect.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '@aos/log';
import { startAllInOne } from '@aos/server';
import { startSender } from './ingest-phases.ts';
import { pacedPhase, type PacedFigures } from './paced-phase.ts';
import { drainQueue, rssThirds } from './service-probe.ts';

/** What one run prints: the paced phase's figures, with its deepest queue and peak RSS. */
export type RunFigures = Pick<PacedFigures, 'acked' | 'written' | 'refused' | 'refusedBy' | 'p50' | 'p99' | 'eventLoop'> & { maxDepth: number; peakRssMiB: number; rowsPerInsert: number };

const RATE = Number(process.env.BENCH_LEVER_RATE ?? 6000);
const SECONDS = Number(process.env.BENCH_LEVER_SECONDS ?? 20);
const SENDERS = 2;
const POOL_REQUESTS = 40;
const WARM_UP_SECONDS = 5;
const STOP_SECONDS = 30;

const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-lever-'));
const service = await startAllInOne({ ...process.env, DATA_DIR: dataDir, PORT: '0', OTLP_GRPC_PORT: '0', LOG_LEVEL: 'warn' }, silentLogger);
const senders = Array.from({ length: SENDERS }, (_, i) => startSender(i, POOL_REQUESTS));
try {
  await Promise.all(senders.map((s) => s.ready));
  const target = { transport: 'http' as const, url: service.url, grpcAddress: '', key: service.createdKey!.secret };
  await pacedPhase(senders, target, service, RATE, WARM_UP_SECONDS);
  await drainQueue(service, 30);
  const before = { ...service.writer.stats };
  const f = await pacedPhase(senders, target, service, RATE, SECONDS);
  const rowsPerInsert = (service.writer.stats.rows - before.rows) / Math.max(1, service.writer.stats.inserts - before.inserts);
  const maxDepth = Math.max(0, ...f.samples.map((s) => s.depth));
  const { peak } = rssThirds(f.samples);
  const figures: RunFigures = { acked: f.acked, written: f.written, refused: f.refused, refusedBy: f.refusedBy, p50: f.p50, p99: f.p99, eventLoop: f.eventLoop, maxDepth, peakRssMiB: peak, rowsPerInsert };
  console.log(JSON.stringify(figures));
} finally {
  for (const s of senders) s.child.kill();
  // Bounded: a stop that hangs must not hold up the other variants (it is reported; exiting
  // kills the private redis-server).
  const stopped = await Promise.race([service.stop().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), STOP_SECONDS * 1000).unref())]);
  if (!stopped) console.error(`service.stop() did not finish within ${STOP_SECONDS} s`);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
