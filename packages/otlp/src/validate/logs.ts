/**
 * Which log records ingest keeps: events emitted inside a span (a trace id and a span id),
 * since they are stored as part of that span, and of the kinds the caller reads. The
 * others are counted for ExportLogsPartialSuccess with the reason, not dropped silently.
 */
import type { AttributeValue, Attributes, OtlpLogsExport } from '../types.ts';

/** A kept record, flattened out of its resource and scope: all the writer needs of it. */
export interface SpanLogRecord {
  traceId: string;
  spanId: string;
  /** When the event happened (the observed time when the sender left it unset), ns since the epoch. */
  timeUnixNano: string;
  /** The record's `event_name`, else its `event.name` attribute. */
  eventName: string;
  attributes: Attributes;
  body: AttributeValue;
}

export interface LogRecordPartition {
  accepted: SpanLogRecord[];
  rejected: number;
  /** The rejections by reason, for the exporter; "" when none. */
  errorMessage: string;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** The event name a record carries: the field of OTLP 1.5+, else the attribute older SDKs set. */
export function logRecordEventName(eventName: string, attributes: Attributes): string {
  if (eventName !== '') return eventName;
  const attribute = attributes['event.name'];
  return typeof attribute === 'string' ? attribute : '';
}

/** Splits an export into the records to keep and a summary of the refused ones. */
export function partitionSpanLogRecords(req: OtlpLogsExport, keepsEvent: (name: string) => boolean): LogRecordPartition {
  const accepted: SpanLogRecord[] = [];
  let withoutSpan = 0;
  let otherEvents = 0;
  let firstOther = '';
  for (const resourceLogs of req.resourceLogs) {
    for (const scopeLogs of resourceLogs.scopeLogs) {
      for (const record of scopeLogs.logRecords) {
        const eventName = logRecordEventName(record.eventName, record.attributes);
        if (!hasSpanContext(record.traceId, record.spanId)) {
          withoutSpan++;
        } else if (!keepsEvent(eventName)) {
          if (otherEvents++ === 0) firstOther = eventName;
        } else {
          accepted.push({
            traceId: record.traceId,
            spanId: record.spanId,
            timeUnixNano: record.timeUnixNano === '0' ? record.observedTimeUnixNano : record.timeUnixNano,
            eventName,
            attributes: record.attributes,
            body: record.body,
          });
        }
      }
    }
  }
  const rejected = withoutSpan + otherEvents;
  const reasons: string[] = [];
  if (withoutSpan > 0) reasons.push(`${withoutSpan} without a span context (a record is kept as part of its span: it needs a valid traceId and spanId)`);
  if (otherEvents > 0) {
    const first = firstOther === '' ? 'a record without an event name' : `first: ${JSON.stringify(firstOther.slice(0, 80))}`;
    reasons.push(`${otherEvents} not GenAI message or evaluation events (${first})`);
  }
  return {
    accepted,
    rejected,
    errorMessage: rejected === 0 ? '' : `rejected ${rejected} of ${rejected + accepted.length} log records: ${reasons.join(', ')}`,
  };
}

function hasSpanContext(traceId: string, spanId: string): boolean {
  return TRACE_ID.test(traceId) && traceId !== ZERO_TRACE_ID && SPAN_ID.test(spanId) && spanId !== ZERO_SPAN_ID;
}
