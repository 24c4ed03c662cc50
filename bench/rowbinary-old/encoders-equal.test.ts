import { describe, expect, it } from 'vitest';
import { decodeJsonExport, decodeProtobufExport } from '@aos/otlp';
import { loadPriceTable, spanRowsFromExport } from '@aos/domain';
import { encodeSpanRowsRowBinary } from '@aos/storage';
import { agentRequest } from '../agent-spans.ts';
import { mixedExport } from '../mixed-spans.ts';
import { encodeSpanRowsRowBinaryOld } from './span-rowbinary.ts';

// While the old encoder exists: the new one's bytes are the old one's, row for row.
const ctx = { projectId: 'bench', receivedAtMs: 1_767_600_000_000, prices: loadPriceTable(), maxValueBytes: 262_144 };
const AWKWARD = 'a "quoted" it\'s\ttab\\back\nline naïve 東京 🙂 \u0000nul {"json":[1,2]} ' + 'é'.repeat(50);

describe('the rewritten RowBinary span encoder', () => {
  it('writes the old encoder’s bytes for every row of the bench pools and of awkward text', () => {
    const batches = [
      ...Array.from({ length: 3 }, (_, i) => spanRowsFromExport(decodeProtobufExport(agentRequest(300, 500_000 + i).body), ctx)),
      spanRowsFromExport(mixedExport(50), ctx),
    ];
    const awkwardExport = JSON.stringify({
      resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: AWKWARD } }] }, scopeSpans: [{ scope: { name: AWKWARD }, spans: [
        { traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', name: AWKWARD, kind: 1, startTimeUnixNano: '1767600000123456789', endTimeUnixNano: '1767600001000000001',
          attributes: [{ key: AWKWARD, value: { stringValue: AWKWARD.repeat(40) } }, { key: 'gen_ai.request.model', value: { stringValue: AWKWARD } }] },
      ] }] }],
    });
    batches.push(spanRowsFromExport(decodeJsonExport(awkwardExport), ctx));
    let rows = 0;
    for (const batch of batches) {
      for (const row of batch) {
        expect(encodeSpanRowsRowBinary([row]).equals(encodeSpanRowsRowBinaryOld([row]))).toBe(true);
        rows++;
      }
      expect(encodeSpanRowsRowBinary(batch).equals(encodeSpanRowsRowBinaryOld(batch))).toBe(true);
    }
    expect(rows).toBeGreaterThan(1000);
  });
});
