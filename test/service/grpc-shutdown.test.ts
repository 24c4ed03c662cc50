import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { findFreePort } from '@aos/local-services';
import { devKey, startChildService, type ChildService } from '../support/child-service.ts';
import { rawExportClient } from '../support/grpc.ts';
import { recordSpans, serializeSpans } from '../support/otel.ts';
import { eventually } from '../support/service.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'aos-grpc-shutdown-'));
const children: ChildService[] = [];

afterAll(async () => {
  for (const child of children) await child.kill().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

describe('SIGTERM with OTLP/gRPC exports in flight', () => {
  it('exits cleanly, and every export it acked is stored', async () => {
    const port = await findFreePort();
    const env = {
      DATA_DIR: dataDir,
      REDIS_URL: inject('redisUrl'),
      QUEUE_PREFIX: `grpc-shutdown-${randomUUID()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      OTLP_GRPC_PORT: String(port),
      LOG_LEVEL: 'error',
    };
    const first = await startChildService(env);
    children.push(first);
    const key = devKey(dataDir);
    const client = rawExportClient(`127.0.0.1:${port}`);
    const requests = Array.from({ length: 20 }, () => recordSpans(500));
    const outcomes = requests.map((spans) => client.export(serializeSpans(spans, 'protobuf'), key));
    // Once the first is acked the others are being received, decoded or queued: stop now.
    await Promise.race(outcomes);
    await first.stop();
    expect(first.process.exitCode).toBe(0);
    const settled = await Promise.all(outcomes);
    client.close();
    // Each export was either acked, or refused / cut off and so left to the exporter to send again.
    const acked = requests.filter((_, i) => settled[i]!.code === grpc.status.OK).map((spans) => spans[0]!.spanContext().traceId);
    for (const outcome of settled) expect(['OK', 'UNAVAILABLE', 'CANCELLED']).toContain(grpc.status[outcome.code]);
    expect(acked.length).toBeGreaterThanOrEqual(1);

    const second = await startChildService(env);
    children.push(second);
    for (const traceId of acked) {
      await eventually(async () => {
        const res = await fetch(`${second.url}/api/v1/traces/${traceId}`, { headers: { 'x-api-key': key } });
        return res.status === 200 && ((await res.json()) as { spanCount: number }).spanCount === 500 ? true : undefined;
      }, 45_000, `acked trace ${traceId}`);
    }
    await second.stop();
  });
});
