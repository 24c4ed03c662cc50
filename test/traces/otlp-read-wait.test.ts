import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { rawExportClient, retryDelaySeconds } from '../support/grpc.ts';
import { recordSpans, serializeSpans } from '../support/otel.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let client: ReturnType<typeof rawExportClient>;

beforeAll(async () => {
  svc = await startTestService({ INGEST_MAX_READ_WAIT_MS: '200', INGEST_RETRY_AFTER_SECONDS: '3' }, { grpc: true });
  client = rawExportClient(svc.grpcAddress!);
  // A first export on each transport: the key and the project's settings are cached from
  // here on, so the exports below are answered without a read of their own.
  expect((await postOtlp()).status).toBe(200);
  expect((await client.export(serializeSpans(recordSpans(1), 'protobuf'), svc.key)).code).toBe(grpc.status.OK);
  await svc.service.storage.client.command({ query: 'CREATE TABLE engine_holder (n UInt8) ENGINE = Null' });
});
afterAll(async () => {
  client?.close();
  await svc?.stop();
});

function postOtlp() {
  const body = serializeSpans(recordSpans(1), 'protobuf');
  return svc.api('/api/v1/traces/otlp', { method: 'POST', body: body as Uint8Array<ArrayBuffer>, headers: { 'content-type': 'application/x-protobuf' } });
}

describe('ingest backs off while reads wait for the embedded engine', () => {
  it('answers 503 with Retry-After (gRPC: RESOURCE_EXHAUSTED with RetryInfo) once a read has waited INGEST_MAX_READ_WAIT_MS, and accepts again when reads are through', async () => {
    const statements = svc.service.storage.statements!;
    // A real write that holds the engine for two seconds, as a large insert does.
    const holding = svc.service.storage.client.command({ query: 'INSERT INTO engine_holder SELECT sleepEachRow(2) FROM numbers(1)' });
    // A read of the API, which waits for the engine behind it.
    const read = svc.api('/api/v1/traces?limit=5');
    await eventually(async () => (statements.readWaitOnWritesMs() > 300 ? true : undefined), 1_500, 'a read waiting');

    const refused = await postOtlp();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(Buffer.from(await refused.arrayBuffer()).toString('latin1')).toMatch(/reads have waited \d+ ms for the storage engine's inserts/);
    const grpcRefused = await client.export(serializeSpans(recordSpans(1), 'protobuf'), svc.key);
    expect(grpc.status[grpcRefused.code]).toBe('RESOURCE_EXHAUSTED');
    expect(grpcRefused.details).toMatch(/reads have waited/);
    expect(retryDelaySeconds(grpcRefused)).toBe(3);

    await holding;
    expect((await read).status).toBe(200);
    expect(statements.readWaitOnWritesMs()).toBe(0);
    expect((await postOtlp()).status).toBe(200);
    expect((await client.export(serializeSpans(recordSpans(1), 'protobuf'), svc.key)).code).toBe(grpc.status.OK);
  });
});
