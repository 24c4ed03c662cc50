// What both modes of the ingest benchmark share: the sender processes, the end-to-end phase
// and how its figures are printed.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Storage } from '@aos/storage';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface SenderResult {
  sentSpans: number;
  requests: number;
  refused: number;
  seconds: number;
  p50: number;
  p99: number;
}

export function startSender(seed: number, poolRequests: number) {
  const child = fork(path.join(here, 'sender.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, POOL_REQUESTS: String(poolRequests), SEED: String(seed * 100_000) },
  });
  const ready = new Promise<{ spans: number; bytes: number }>((resolve) =>
    // IPC messages are the sender's own objects (see sender.ts).
    child.once('message', (m) => resolve(m as { spans: number; bytes: number })),
  );
  const run = (go: object) =>
    new Promise<SenderResult>((resolve, reject) => {
      // One listener pair per phase, removed when it ends: a bench runs a dozen phases.
      const exited = (code: number | null) => reject(new Error(`sender exited ${code}`));
      child.once('exit', exited);
      child.once('message', (m) => {
        child.off('exit', exited);
        resolve(m as SenderResult);
      });
      child.send(go);
    });
  return { child, ready, run };
}

export async function countSpans(storage: Storage, projectId: string): Promise<number> {
  const result = await storage.client.query({
    query: 'SELECT count() AS n FROM spans WHERE project_id = {projectId:String}',
    query_params: { projectId },
    format: 'JSONEachRow',
  });
  return Number((await result.json<{ n: string }>())[0]!.n);
}

/** Where the senders send: the service's HTTP URL and gRPC address, over one of the two, with a key. */
export interface Target {
  transport: 'http' | 'grpc';
  url: string;
  grpcAddress: string;
  key: string;
}

/** Phase 1: every span of the pools once, timed from the first request until all are queryable. */
export async function endToEnd(senders: ReturnType<typeof startSender>[], target: Target, storage: Storage, projectId: string, totalSpans: number) {
  const t0 = performance.now();
  const results = await Promise.all(senders.map((s) => s.run({ ...target, concurrency: 2, seconds: 0 })));
  const ackedAt = performance.now();
  while ((await countSpans(storage, projectId)) < totalSpans) await new Promise((r) => setTimeout(r, 200));
  const seconds = (performance.now() - t0) / 1000;
  return { results, seconds, rate: totalSpans / seconds, ackSeconds: (ackedAt - t0) / 1000 };
}

/** Ack latency of a phase: the worst sender's p50 and p99, and the refusals the senders retried. */
export function ackFigures(results: SenderResult[]): string {
  const p50 = Math.max(...results.map((r) => r.p50));
  const p99 = Math.max(...results.map((r) => r.p99));
  return `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (worst sender); retryable refusals: ${results.reduce((n, r) => n + r.refused, 0)}`;
}

