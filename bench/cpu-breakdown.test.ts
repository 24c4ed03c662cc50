import { describe, expect, it } from 'vitest';
import type { Profiler } from 'node:inspector';
import { spreadOverStages } from './cpu-breakdown.ts';
import { stageOfNativeThread, STAGES, type Stage } from './cpu-stages.ts';

const repo = new URL('..', import.meta.url).href.replace(/\/$/, '');

/** A profile of one thread: each stack (leaf last) sampled `count` times. */
function profileOf(stacks: Array<{ frames: Array<{ functionName: string; url: string }>; count: number }>): Profiler.Profile {
  const nodes: Profiler.ProfileNode[] = [{ id: 1, callFrame: { functionName: '(root)', url: '', scriptId: '0', lineNumber: -1, columnNumber: -1 }, children: [] }];
  const samples: number[] = [];
  for (const { frames, count } of stacks) {
    let parent = nodes[0]!;
    for (const frame of frames) {
      const node: Profiler.ProfileNode = { id: nodes.length + 1, callFrame: { ...frame, scriptId: '1', lineNumber: 0, columnNumber: 0 }, children: [] };
      parent.children!.push(node.id);
      nodes.push(node);
      parent = node;
    }
    for (let i = 0; i < count; i++) samples.push(parent.id);
  }
  return { nodes, samples, startTime: 0, endTime: 1, timeDeltas: samples.map(() => 1) };
}

const emptyStages = () => new Map<Stage, number>(STAGES.map((s) => [s, 0]));

describe('spreadOverStages', () => {
  it("splits a thread's measured CPU over its busy samples by the innermost frame a rule claims, idle and waiting samples left out", () => {
    const profile = profileOf([
      { frames: [{ functionName: '(idle)', url: '' }], count: 50 },
      // Valibot has no rule: its time goes to the queue payload parse that called it.
      { frames: [{ functionName: 'processor', url: `${repo}/apps/writer/src/span-batches/encoder.ts` }, { functionName: 'parseSpanBatchPayload', url: `${repo}/packages/queue/src/ingest-queue.ts` }, { functionName: '~run', url: `${repo}/node_modules/valibot/dist/index.mjs` }], count: 2 },
      { frames: [{ functionName: 'processor', url: `${repo}/apps/writer/src/span-batches/encoder.ts` }, { functionName: 'spanRow', url: `${repo}/packages/domain/src/normalize.ts` }], count: 1 },
      { frames: [{ functionName: '(garbage collector)', url: '' }], count: 1 },
      { frames: [{ functionName: 'mystery', url: `${repo}/node_modules/left-pad/index.js` }], count: 3 },
      { frames: [{ functionName: 'log', url: `${repo}/packages/log/src/logger.ts` }], count: 1 },
    ]);
    const stages = emptyStages();
    const other = new Map<string, number>();
    const busy = spreadOverStages(`${repo}/apps/writer/src/writer-threads/boot.mjs`, profile, 8, stages, other);

    expect(busy).toBe(8);
    expect(stages.get('dequeue + deserialization (BullMQ, Redis client, payload parse)')).toBe(2);
    expect(stages.get('normalization')).toBe(1);
    expect(stages.get('garbage collection on JS threads')).toBe(1);
    expect(stages.get('other')).toBe(4);
    expect(other.get('left-pad/index.js')).toBe(3);
    expect(other.get('packages/log/src/logger.ts')).toBe(1);
    expect([...stages.values()].reduce((n, s) => n + s, 0)).toBe(8);
  });

  it('books queue code as enqueue on the main thread and a tinypool thread blocked in Atomics.wait as waiting', () => {
    const bullmq = { functionName: 'asJSON', url: `${repo}/node_modules/bullmq/dist/cjs/classes/job.js` };
    const mainStages = emptyStages();
    spreadOverStages('main', profileOf([{ frames: [bullmq], count: 3 }]), 3, mainStages, new Map());
    expect(mainStages.get('enqueue + serialization (BullMQ JSON, Redis client)')).toBe(3);

    const decodeStages = emptyStages();
    const decode = profileOf([
      { frames: [{ functionName: 'atomicsWaitLoop', url: `${repo}/node_modules/tinypool/dist/entry/worker.js` }], count: 90 },
      { frames: [{ functionName: 'readExport', url: `${repo}/packages/otlp/src/read-export.ts` }, { functionName: 'decodeSpan', url: `${repo}/packages/otlp/src/decode/protobuf/traces.ts` }], count: 6 },
      { frames: [{ functionName: 'readExport', url: `${repo}/packages/otlp/src/read-export.ts` }, { functionName: 'partitionValidSpans', url: `${repo}/packages/otlp/src/validate/spans.ts` }], count: 4 },
    ]);
    spreadOverStages(`${repo}/node_modules/tinypool/dist/entry/worker.js`, decode, 0.5, decodeStages, new Map());
    expect(decodeStages.get('protobuf decode')).toBeCloseTo(0.3);
    expect(decodeStages.get('validation')).toBeCloseTo(0.2);
  });

  it('books the rows pass on a decode thread as normalization and row encoding, and joining rows on the main thread as the insert', () => {
    const pass = { functionName: 'readSpanRows', url: `${repo}/apps/ingest/src/pipeline/span-rows.ts` };
    const batch = { functionName: 'encodeSpanBatch', url: `${repo}/packages/storage/src/spans/span-batch.ts` };
    const decodeStages = emptyStages();
    const decode = profileOf([
      { frames: [pass, batch, { functionName: 'spanRowsFromExport', url: `${repo}/packages/domain/src/normalize.ts` }], count: 5 },
      { frames: [pass, batch, { functionName: 'encodeSpanRowsRowBinary', url: `${repo}/packages/storage/src/spans/span-rowbinary.ts` }], count: 2 },
      { frames: [pass, batch, { functionName: 'encodeSpanRowsRowBinary', url: `${repo}/packages/storage/src/spans/span-rowbinary.ts` }, { functionName: 'string', url: `${repo}/packages/storage/src/spans/rowbinary-writer.ts` }], count: 1 },
      { frames: [pass, batch], count: 2 },
    ]);
    spreadOverStages(`${repo}/node_modules/tinypool/dist/entry/worker.js`, decode, 10, decodeStages, new Map());
    expect(decodeStages.get('normalization')).toBe(7);
    expect(decodeStages.get('row encoding')).toBe(3);

    const mainStages = emptyStages();
    spreadOverStages('main', profileOf([{ frames: [{ functionName: 'insertEncodedSpans', url: `${repo}/packages/storage/src/spans/writes.ts` }], count: 2 }]), 2, mainStages, new Map());
    expect(mainStages.get('engine insert (JS call, libuv thread running chDB, chDB ThreadPool)')).toBe(2);
  });
});

describe('stageOfNativeThread', () => {
  it("books chDB's threads by the name they carry and V8's profiler threads as the breakdown's own cost", () => {
    expect(stageOfNativeThread('MergeMutate')).toBe('background merges (chDB MergeMutate)');
    expect(stageOfNativeThread('ChunkParser')).toBe('engine insert (JS call, libuv thread running chDB, chDB ThreadPool)');
    expect(stageOfNativeThread('Collector')).toBe('engine queries (chDB Collector, Formatter, RuntimeData)');
    expect(stageOfNativeThread('v8:ProfEvntProc')).toBe("CPU profiler (this breakdown's own sampling threads)");
    expect(stageOfNativeThread('BgSchPool')).toBe('engine housekeeping (other chDB threads)');
  });
});
