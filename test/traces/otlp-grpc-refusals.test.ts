import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import * as grpc from '@grpc/grpc-js';
import type { SpanBatchPayload } from '@aos/queue';
import { createApiKey } from '@aos/storage';
import { rawExportClient, retryDelaySeconds, type RawExportOutcome } from '../support/grpc.ts';
import { recordSpans, serializeSpans } from '../support/otel.ts';
import { openIngestQueue } from '../support/ingest-queue.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

const LIMIT = 256 * 1024;
let svc: TestService;
let client: ReturnType<typeof rawExportClient>;
let ingest: ReturnType<typeof openIngestQueue>;
let queue: Queue<SpanBatchPayload>;
let storedTraceId: string;

beforeAll(async () => {
  svc = await startTestService({ INGEST_MAX_BODY_BYTES: String(LIMIT), INGEST_MAX_QUEUE_DEPTH: '2', INGEST_RETRY_AFTER_SECONDS: '7' }, { grpc: true });
  client = rawExportClient(svc.grpcAddress!);
  ingest = openIngestQueue(svc);
  queue = ingest.queue;
  // A trace accepted before any refusal: it must survive everything below.
  const spans = recordSpans(5);
  storedTraceId = spans[0]!.spanContext().traceId;
  expect((await client.export(serializeSpans(spans, 'protobuf'), svc.key)).code).toBe(grpc.status.OK);
  await eventually(async () => ((await spanCount(storedTraceId)) === 5 ? true : undefined));
});
afterAll(async () => {
  client?.close();
  await ingest?.close();
  await svc?.stop();
});

async function spanCount(traceId: string): Promise<number> {
  const res = await svc.api(`/api/v1/traces/${traceId}`);
  return res.status === 200 ? ((await res.json()) as { spanCount: number }).spanCount : 0;
}

function expectRefusal(outcome: RawExportOutcome, code: grpc.status, details: RegExp) {
  expect(grpc.status[outcome.code], outcome.details).toBe(grpc.status[code]);
  expect(outcome.details).toMatch(details);
}

describe('OTLP/gRPC refuses with the status exporters expect', () => {
  it('UNAUTHENTICATED for a missing, unknown or revoked key', async () => {
    const body = serializeSpans(recordSpans(1), 'protobuf');
    expectRefusal(await client.export(body), grpc.status.UNAUTHENTICATED, /missing API key.*x-api-key/);
    expectRefusal(await client.export(body, 'aos_not-a-key'), grpc.status.UNAUTHENTICATED, /unknown or revoked API key/);
    const unknown = await client.export(body, 'aos_not-a-key');
    expect(retryDelaySeconds(unknown)).toBeNull();
  });

  it('PERMISSION_DENIED for a key without the ingest scope', async () => {
    const reader = await createApiKey(svc.service.storage, { projectId: 'default', name: 'reader', scopes: ['read', 'write', 'admin'] });
    expectRefusal(await client.export(serializeSpans(recordSpans(1), 'protobuf'), reader.secret), grpc.status.PERMISSION_DENIED, /lacks the ingest scope/);
  });

  it('INVALID_ARGUMENT with the decoder\'s reason for a message that is not an ExportTraceServiceRequest', async () => {
    const body = serializeSpans(recordSpans(3), 'protobuf');
    for (const cut of [1, 7, Math.floor(body.length / 2), body.length - 1]) {
      expectRefusal(await client.export(body.subarray(0, cut), svc.key), grpc.status.INVALID_ARGUMENT, /protobuf/);
    }
    let refused = 0;
    for (let i = 0; i < 30; i++) {
      const outcome = await client.export(randomBytes(64 + i * 13), svc.key);
      // Random bytes are almost always invalid; any that happen to parse carry no valid span.
      expect([grpc.status.OK, grpc.status.INVALID_ARGUMENT]).toContain(outcome.code);
      if (outcome.code === grpc.status.INVALID_ARGUMENT) refused++;
    }
    expect(refused).toBeGreaterThan(20);
  });

  it('RESOURCE_EXHAUSTED without RetryInfo (final) for a message over INGEST_MAX_BODY_BYTES, plain or inflated from gzip', async () => {
    const oversized = await client.export(randomBytes(LIMIT + 1), svc.key);
    expectRefusal(oversized, grpc.status.RESOURCE_EXHAUSTED, /larger than max/);
    expect(retryDelaySeconds(oversized)).toBeNull();
    // 64 MiB of zeros are about 64 KiB gzipped: small on the wire, refused once inflated past the limit.
    const gzipClient = rawExportClient(svc.grpcAddress!, { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip });
    try {
      const bomb = await gzipClient.export(Buffer.alloc(64 * 1024 * 1024), svc.key);
      expectRefusal(bomb, grpc.status.RESOURCE_EXHAUSTED, new RegExp(`decompresses to a size larger than ${LIMIT}`));
      // The same client's gzipped messages within the limit are taken.
      const spans = recordSpans(2);
      expect((await gzipClient.export(serializeSpans(spans, 'protobuf'), svc.key)).code).toBe(grpc.status.OK);
      await eventually(async () => ((await spanCount(spans[0]!.spanContext().traceId)) === 2 ? true : undefined));
    } finally {
      gzipClient.close();
    }
  });

  it('RESOURCE_EXHAUSTED with RetryInfo above the queue\'s high-water mark, and accepts again once drained', async () => {
    await queue.pause();
    const accepted: string[] = [];
    let refused: RawExportOutcome | undefined;
    try {
      for (let i = 0; i < 10 && !refused; i++) {
        const spans = recordSpans(1);
        const outcome = await client.export(serializeSpans(spans, 'protobuf'), svc.key);
        if (outcome.code === grpc.status.OK) accepted.push(spans[0]!.spanContext().traceId);
        else refused = outcome;
        // The depth is sampled at most every 250 ms.
        await new Promise((r) => setTimeout(r, 300));
      }
    } finally {
      await queue.resume();
    }
    expect(refused).toBeDefined();
    expectRefusal(refused!, grpc.status.RESOURCE_EXHAUSTED, /queue is full/);
    expect(retryDelaySeconds(refused!)).toBe(7);
    expect(accepted.length).toBeGreaterThanOrEqual(2);
    for (const traceId of accepted) await eventually(async () => ((await spanCount(traceId)) === 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect((await client.export(serializeSpans(recordSpans(1), 'protobuf'), svc.key)).code).toBe(grpc.status.OK);
  });

  it('kept everything accepted before the refusals', async () => {
    expect(await spanCount(storedTraceId)).toBe(5);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });
});
