import { afterAll, describe, expect, it } from 'vitest';
import { Tinypool } from 'tinypool';
import { loadPriceTable } from '@aos/domain';
import { agentRequest } from '../../../../bench/agent-spans.ts';
import { createDecodePool } from './decode-pool.ts';
import { movingRows } from './decode-thread.ts';
import { readSpanRows, type SpanRowsInput, type SpanRowsResult } from './span-rows.ts';

const prices = loadPriceTable();
const NOW_MS = Date.now();

function input(body: Uint8Array): SpanRowsInput {
  return {
    body,
    encoding: 'protobuf',
    limits: { maxAttributes: 1024, maxEvents: 1024, maxLinks: 128, maxValueLength: 1 << 20, maxValueDepth: 16 },
    projectId: 'p1',
    receivedAtMs: NOW_MS,
    dimensionKeys: [],
    maxValueBytes: 1 << 18,
  };
}

const pool = createDecodePool({ threads: 1, minBytes: 0, timeLimitMs: 60_000, prices, pricesFile: undefined });
afterAll(() => pool.close());

describe("a decode thread's rows", () => {
  it('arrive from the thread byte for byte as decoding in place gives them', async () => {
    const body = agentRequest(200, 42).body;
    const inPlace = readSpanRows(input(body.slice()), null, prices) as SpanRowsResult;
    const fromThread = (await pool.spanRows(input(body.slice()), { masking: null, maskingSource: null })) as SpanRowsResult;
    expect(fromThread.ok).toBe(true);
    expect(fromThread.acceptedSpans).toBe(200);
    expect(Buffer.from(fromThread.batch!.chunk).equals(Buffer.from(inPlace.batch!.chunk))).toBe(true);
    expect({ ...fromThread, batch: { ...fromThread.batch, chunk: null } }).toEqual({ ...inPlace, batch: { ...inPlace.batch, chunk: null } });
  });

  it('are moved to the main thread, not copied: the transfer list names their memory', () => {
    const result = readSpanRows(input(agentRequest(50, 7).body), null, prices) as SpanRowsResult;
    const chunk = result.batch!.chunk;
    const bytes = Buffer.from(chunk);
    const moving = movingRows(result) as unknown as Record<symbol, unknown>;
    const transfer = moving[Tinypool.transferableSymbol] as ArrayBuffer[];
    expect(transfer).toEqual([chunk.buffer]);
    // What postMessage does with that list: the memory changes hands, the sender's view is emptied.
    const received = structuredClone(moving[Tinypool.valueSymbol], { transfer }) as SpanRowsResult;
    expect(chunk.byteLength).toBe(0);
    expect(Buffer.from(received.batch!.chunk).equals(bytes)).toBe(true);
  });

  it('stay in place when they are a view into a larger buffer, and failures pass as they are', () => {
    const result = readSpanRows(input(agentRequest(5, 9).body), null, prices) as SpanRowsResult;
    const larger = new Uint8Array(result.batch!.chunk.byteLength + 16);
    const view = { ...result, batch: { ...result.batch!, chunk: larger.subarray(8, 8 + result.batch!.chunk.byteLength) } };
    expect(movingRows(view)).toBe(view);
    const failure = readSpanRows(input(new Uint8Array([0xff, 0xff, 0xff])), null, prices);
    expect(failure.ok).toBe(false);
    expect(movingRows(failure)).toBe(failure);
  });
});
