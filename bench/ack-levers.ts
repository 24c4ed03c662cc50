// What delays an ack at part load (issue 21, part 4): the same paced load against fresh
// all-in-one services that differ in one setting each, in turns (A, B, C, A, B, C, …) so
// that every variant meets the same share of a shared machine's noise. Prints each
// variant's medians over its runs and their ratio to the defaults.
//   node --import tsx bench/ack-levers.ts   (BENCH_LEVER_RATE, BENCH_LEVER_SECONDS, BENCH_LEVER_ROUNDS)
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RunFigures } from './ack-lever-run.ts';

const ROUNDS = Number(process.env.BENCH_LEVER_ROUNDS ?? 2);
const LEVER_SECONDS = Number(process.env.BENCH_LEVER_SECONDS ?? 20);
/** Start, sender pools, warm-up, drain and a bounded stop: more than any run needs beside its load. */
const RUN_OVERHEAD_SECONDS = 180;
const here = path.dirname(fileURLToPath(import.meta.url));

/** Each variant changes one setting from the defaults (documented in docs/configuration.md). */
const VARIANTS: Record<string, Record<string, string>> = {
  defaults: {},
  'decode every body on a thread': { INGEST_DECODE_THREAD_MIN_BYTES: '0' },
  'writer on the main thread': { WRITER_THREADS: '0' },
  'two writer threads': { WRITER_THREADS: '2' },
  'writer concurrency 8': { WRITER_CONCURRENCY: '8' },
  'writer concurrency 128': { WRITER_CONCURRENCY: '128' },
  'inserts of 20,000 rows': { WRITER_BATCH_MAX_ROWS: '20000' },
  'blocks gathered for 2 s': { WRITER_BATCH_MAX_WAIT_MS: '2000' },
  'engine threads at normal priority': { ENGINE_THREADS_NICE: '0' },
  // Redis fsyncs every write, the engine every part (docs/operations.md, "What an ack means").
  'strict durability': { DURABILITY: 'strict' },
};
const FILTER = process.env.BENCH_LEVERS ? new RegExp(process.env.BENCH_LEVERS, 'i') : null;

async function runVariant(env: Record<string, string>): Promise<RunFigures> {
  // A run whose service does not stop (seen with two writer threads: process.exit waited
  // for a thread) is killed once it is past any run's length; its figures still count.
  const output = await promisify(execFile)(process.execPath, ['--max-semi-space-size=64', '--heap-growing-percent=200', '--import', 'tsx', path.join(here, 'ack-lever-run.ts')], {
    env: { ...process.env, ...env },
    maxBuffer: 16 * 2 ** 20,
    timeout: (LEVER_SECONDS + RUN_OVERHEAD_SECONDS) * 1000,
    killSignal: 'SIGKILL',
  }).catch((err: Error & { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: `${err.stderr ?? ''}\n${err.message.split('\n')[0]}` }));
  if (output.stderr.trim()) console.error(output.stderr.trim());
  const figures = output.stdout.trim().split('\n').at(-1);
  if (!figures?.startsWith('{')) throw new Error(`a lever run printed no figures: ${output.stderr}`);
  return JSON.parse(figures) as RunFigures;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const names = Object.keys(VARIANTS).filter((n) => n === 'defaults' || !FILTER || FILTER.test(n));
const runs = new Map<string, RunFigures[]>(names.map((n) => [n, []]));
const load0 = loadavg()[0]!;
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names) {
    const figures = await runVariant(VARIANTS[name]!);
    runs.get(name)!.push(figures);
    console.error(`round ${round + 1} ${name}: ${JSON.stringify(figures)}`);
  }
}
console.log(`ack levers at ${process.env.BENCH_LEVER_RATE ?? 6000} spans/s offered, ${ROUNDS} runs each in turns; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`);
console.log('| variant | ack p50 / p99 ms | p99 / defaults | event loop p99 / max ms | acked / written spans/s | refusals | max queue depth | peak RSS MiB | rows per insert |');
const base = median(runs.get('defaults')!.map((r) => r.p99));
for (const [name, rs] of runs) {
  const m = (f: (r: RunFigures) => number) => median(rs.map(f));
  console.log(
    `| ${name} | ${m((r) => r.p50).toFixed(0)} / ${m((r) => r.p99).toFixed(0)} | ${(m((r) => r.p99) / base).toFixed(2)} | ` +
      `${m((r) => r.eventLoop.p99).toFixed(0)} / ${m((r) => r.eventLoop.max).toFixed(0)} | ${Math.round(m((r) => r.acked))} / ${Math.round(m((r) => r.written))} | ` +
      `${m((r) => r.refused)} | ${m((r) => r.maxDepth)} | ${m((r) => r.peakRssMiB).toFixed(0)} | ${m((r) => r.rowsPerInsert).toFixed(0)} |`,
  );
}
