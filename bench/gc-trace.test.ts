import { describe, expect, it } from 'vitest';
import { gcSummary, parseGcTrace } from './gc-trace.ts';

const TRACE = [
  '[6901:0x28cac490]       22 ms: Scavenge 3.8 (4.0) -> 3.4 (5.0) MB, 1.27 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
  '[6901:0x28cac490]     8123 ms: Mark-Compact 812.3 (850.1) -> 600.2 (640.0) MB, pooled: 0 MB, 512.34 / 0.12 ms  (+ 2.2 ms in 33 steps since start of marking, biggest step 0.1 ms, walltime since start of marking 19 ms) (average mu = 0.938, current mu = 0.938) finalize incremental marking via task; GC in old space requested',
  '[6901:0x7f1238000f00]       29 ms: Scavenge 3.2 (3.2) -> 2.8 (4.2) MB, 300.64 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
  'agent observability service listening on http://127.0.0.1:1',
].join('\n');

describe('parseGcTrace', () => {
  it("reads each pause's isolate, time, kind, length, heap after and cause, and skips other lines", () => {
    expect(parseGcTrace(TRACE)).toEqual([
      { isolate: '0x28cac490', atMs: 22, kind: 'Scavenge', pauseMs: 1.27, heapAfterMiB: 3.4, reason: 'allocation failure' },
      { isolate: '0x28cac490', atMs: 8123, kind: 'Mark-Compact', pauseMs: 512.34, heapAfterMiB: 600.2, reason: 'finalize incremental marking via task' },
      { isolate: '0x7f1238000f00', atMs: 29, kind: 'Scavenge', pauseMs: 300.64, heapAfterMiB: 2.8, reason: 'allocation failure' },
    ]);
  });

  it('sums up per isolate, the first seen as the main thread, and lists the long pauses', () => {
    const lines = gcSummary(parseGcTrace(TRACE));
    expect(lines[0]).toMatch(/^gc main \(0x28cac490\): Scavenge 1× 1 ms \(max 1\), Mark-Compact 1× 512 ms \(max 512\);.*finalize incremental marking via task 512 ms$/);
    expect(lines[1]).toMatch(/^gc thread 1 \(0x7f1238000f00\): Scavenge 1× 301 ms/);
    expect(lines.slice(2)).toEqual([
      '  pause 512 ms, Mark-Compact, main at 8123 ms, heap after 600.2 MB, finalize incremental marking via task',
      '  pause 301 ms, Scavenge, thread 1 at 29 ms, heap after 2.8 MB, allocation failure',
    ]);
  });
});
