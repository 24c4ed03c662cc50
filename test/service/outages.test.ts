import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { startLocalRedis, type LocalRedis } from '@aos/local-services';
import { rawExportClient, retryDelaySeconds } from '../support/grpc.ts';
import { recordSpans, serializeSpans } from '../support/otel.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

const redisDir = mkdtempSync(path.join(tmpdir(), 'aos-outage-redis-'));
let redis: LocalRedis;
let svc: TestService;
let grpcClient: ReturnType<typeof rawExportClient>;

beforeAll(async () => {
  redis = await startLocalRedis({ dir: redisDir });
  svc = await startTestService({ REDIS_URL: redis.url, INGEST_RETRY_AFTER_SECONDS: '3' }, { grpc: true });
  grpcClient = rawExportClient(svc.grpcAddress!);
});
afterAll(async () => {
  grpcClient?.close();
  await svc?.stop();
  await redis?.stop();
  rmSync(redisDir, { recursive: true, force: true });
});

function send(traceId: string) {
  const now = Date.now() * 1e6;
  return svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: '00000000000000e1', name: 'outage', startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1000) }] }] }],
    }),
  });
}

async function stored(traceId: string) {
  return (await svc.api(`/api/v1/traces/${traceId}`)).status === 200 ? true : undefined;
}

describe('outages', () => {
  it('is answered 503 with Retry-After, loses nothing accepted, and ingest recovers with Redis', async () => {
    const before = 'a0'.repeat(16);
    expect((await send(before)).status).toBe(200);
    await eventually(() => stored(before));

    await redis.stop();
    // Let the cached queue depth expire so the next request has to reach Redis.
    await new Promise((r) => setTimeout(r, 300));
    const during = await send('a1'.repeat(16));
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toBe('3');
    expect(((await during.json()) as any).message).toMatch(/unavailable/);
    // OTLP/gRPC: UNAVAILABLE, retryable after the same delay.
    const duringGrpc = await grpcClient.export(serializeSpans(recordSpans(1), 'protobuf'), svc.key);
    expect(grpc.status[duringGrpc.code]).toBe('UNAVAILABLE');
    expect(duringGrpc.details).toMatch(/unavailable/);
    expect(retryDelaySeconds(duringGrpc)).toBe(3);
    // Reads do not depend on Redis: what was stored is still served.
    expect(await stored(before)).toBe(true);

    redis = await startLocalRedis({ dir: redisDir, port: redis.port });
    const after = 'a2'.repeat(16);
    await eventually(async () => ((await send(after)).status === 200 ? true : undefined), 30_000, 'ingest to accept again');
    await eventually(() => stored(after), 30_000, 'the span sent after the outage');
    const afterGrpc = recordSpans(1);
    expect((await grpcClient.export(serializeSpans(afterGrpc, 'protobuf'), svc.key)).code).toBe(grpc.status.OK);
    await eventually(() => stored(afterGrpc[0]!.spanContext().traceId), 30_000, 'the span sent over gRPC after the outage');
  });

  it('storage that cannot be reached is answered 503 (retryable), not 500', async () => {
    await svc.service.storage.close();
    const res = await svc.api('/api/v1/traces/otlp', {
      method: 'POST',
      key: 'aos_never-seen-before-so-not-cached',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(((await res.json()) as any).message).toMatch(/API key/);
    const overGrpc = await grpcClient.export(new Uint8Array(0), 'aos_another-never-seen-before-key');
    expect(grpc.status[overGrpc.code]).toBe('UNAVAILABLE');
    expect(overGrpc.details).toMatch(/API key/);
    expect(retryDelaySeconds(overGrpc)).toBe(3);
    // The read API says the same in its own error shape.
    const read = await svc.api('/api/v1/traces');
    expect(read.status).toBe(503);
    expect(((await read.json()) as any).error.code).toBe('unavailable');
  });
});
