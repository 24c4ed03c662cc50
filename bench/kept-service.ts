import { readFileSync } from 'node:fs';
import path from 'node:path';
import { silentLogger } from '@aos/log';
import { startAllInOne } from '@aos/server';
import { percentile } from './service-probe.ts';

const DAY = 86_400_000;

/**
 * The all-in-one service over a dataset kept by bench:query (BENCH_DATA_DIR), for the
 * profiles of single reads: the writer's background passes (rollups, trace flags) are kept
 * out, as the query bench keeps them, and the dataset's own clock and API key come with it.
 */
export async function startKeptService(dataDir: string | undefined) {
  if (!dataDir) throw new Error('BENCH_DATA_DIR: a kept dataset (bench:query) is needed');
  const service = await startAllInOne(
    {
      DATA_DIR: dataDir, PORT: '0', OTLP_GRPC_PORT: '0', LOG_LEVEL: 'warn',
      TRACE_ROLLUP_QUIET_MS: String(365 * DAY), TRACE_ROLLUP_INTERVAL_MS: String(DAY), TRACE_FLAGS_INTERVAL_MS: String(DAY),
    },
    silentLogger,
  );
  const { now } = JSON.parse(readFileSync(path.join(dataDir, 'bench-dataset.json'), 'utf8')) as { now: number };
  const key = readFileSync(path.join(dataDir, 'dev-api-key.txt'), 'utf8').trim();
  return { service, now, key };
}

/** The median wall time of `runs` calls of `fn`, after one unmeasured call (the first read of a part loads its marks). */
export async function medianMs(fn: () => unknown, runs: number): Promise<number> {
  await fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    xs.push(performance.now() - t0);
  }
  return percentile(xs, 50);
}
