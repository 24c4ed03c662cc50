import type { OtlpTraceExport, SpanLogRecord } from '@aos/otlp';
import { maskExport, type CompiledPolicy } from '@aos/masking';

/** Where a record's body rides through the masker: a key no attribute can have, so it never collides. */
const BODY = '\u0000body';

/**
 * Masks log records in place with the project's policy, as it masks span events: each
 * record is handed to the masker as a span holding one event of the record's name, its
 * body beside its attributes, so rules on `events`, `input` and `output` apply to a
 * `gen_ai.user.message` record exactly as to the same span event. Returns how many records
 * a rule changed, and the rules that fired on values counted as output, per record's
 * trace, for masking findings.
 */
export function maskLogRecords(
  records: SpanLogRecord[],
  policy: CompiledPolicy,
): { maskedRecords: number; outputHits: { traceId: string; rules: string[] }[] } {
  if (policy.rules.length === 0 || records.length === 0) return { maskedRecords: 0, outputHits: [] };
  const holders = records.map((r) => ({ ...r.attributes, [BODY]: r.body }));
  const asSpans: OtlpTraceExport = {
    resourceSpans: [
      {
        resource: { attributes: {} },
        scopeSpans: [
          {
            scope: { name: '', version: '' },
            spans: records.map((r, i) => ({
              traceId: r.traceId,
              spanId: r.spanId,
              parentSpanId: '',
              traceState: '',
              name: r.eventName,
              kind: 0,
              startTimeUnixNano: r.timeUnixNano,
              endTimeUnixNano: r.timeUnixNano,
              attributes: {},
              droppedAttributesCount: 0,
              events: [{ name: r.eventName, timeUnixNano: r.timeUnixNano, attributes: holders[i]! }],
              droppedEventsCount: 0,
              links: [],
              status: { code: 0, message: '' },
            })),
          },
        ],
      },
    ],
  };
  const masking = maskExport(asSpans, policy);
  records.forEach((r, i) => {
    const { [BODY]: body, ...attributes } = holders[i]!;
    r.attributes = attributes;
    r.body = body ?? null;
  });
  return {
    maskedRecords: masking.spans.length,
    outputHits: masking.spans.filter((s) => s.outputRules.length > 0).map((s) => ({ traceId: s.span.traceId, rules: s.outputRules })),
  };
}
