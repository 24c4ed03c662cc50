import { describe, expect, it } from 'vitest';
import { decodeLogsExport, OtlpDecodeError, partitionSpanLogRecords } from '../index.ts';
import { getOtlpSchema } from '../schema.ts';
import type { OtlpLogsExport } from '../types.ts';

const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';

/** One request in protobufjs object form: a record with every field, one outside any span. */
const request = {
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] },
      scopeLogs: [
        {
          scope: { name: '@opentelemetry/instrumentation-openai', version: '0.1.0' },
          logRecords: [
            {
              timeUnixNano: '1700000000000000001',
              observedTimeUnixNano: '1700000000000000002',
              severityNumber: 9,
              severityText: 'INFO',
              body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'Hi' } }, { key: 'n', value: { intValue: '7' } }] } },
              attributes: [{ key: 'gen_ai.system', value: { stringValue: 'openai' } }],
              flags: 1,
              traceId: Buffer.from(TRACE, 'hex'),
              spanId: Buffer.from(SPAN, 'hex'),
              eventName: 'gen_ai.user.message',
            },
            { observedTimeUnixNano: '5', body: { stringValue: 'plain log' }, attributes: [{ key: 'event.name', value: { stringValue: 'gen_ai.choice' } }] },
          ],
        },
      ],
    },
  ],
};

const expected: OtlpLogsExport = {
  resourceLogs: [
    {
      resource: { attributes: { 'service.name': 'agent' } },
      scopeLogs: [
        {
          scope: { name: '@opentelemetry/instrumentation-openai', version: '0.1.0' },
          logRecords: [
            {
              timeUnixNano: '1700000000000000001',
              observedTimeUnixNano: '1700000000000000002',
              severityNumber: 9,
              severityText: 'INFO',
              body: { content: 'Hi', n: 7 },
              attributes: { 'gen_ai.system': 'openai' },
              traceId: TRACE,
              spanId: SPAN,
              eventName: 'gen_ai.user.message',
            },
            { timeUnixNano: '0', observedTimeUnixNano: '5', severityNumber: 0, severityText: '', body: 'plain log', attributes: { 'event.name': 'gen_ai.choice' }, traceId: '', spanId: '', eventName: '' },
          ],
        },
      ],
    },
  ],
};

describe('OTLP logs decoding', () => {
  it('reads protobuf as protobufjs encodes it from the .proto files', () => {
    const { ExportLogsServiceRequest } = getOtlpSchema();
    const bytes = ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(request)).finish();
    expect(decodeLogsExport(bytes, 'protobuf')).toEqual(expected);
  });

  it('reads OTLP/JSON (hex ids, severity by number or name) into the same shape', () => {
    const json = JSON.parse(JSON.stringify(request));
    const record = json.resourceLogs[0].scopeLogs[0].logRecords[0];
    Object.assign(record, { traceId: TRACE.toUpperCase(), spanId: SPAN, severityNumber: 'SEVERITY_NUMBER_INFO', flags: 1 });
    expect(decodeLogsExport(new TextEncoder().encode(JSON.stringify(json)), 'json')).toEqual(expected);
  });

  it('fails with the place of the fault', () => {
    // LogRecord.time_unix_nano (fixed64) sent as a varint.
    const wrongWire = Uint8Array.from([0x0a, 0x06, 0x12, 0x04, 0x12, 0x02, 0x08, 0x01]);
    expect(() => decodeLogsExport(wrongWire, 'protobuf')).toThrow(/LogRecord\.time_unix_nano \(field 1\) has wire type 0/);
    const body = new TextEncoder().encode('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":5}]}]}]}');
    expect(() => decodeLogsExport(body, 'json')).toThrow(OtlpDecodeError);
    expect(() => decodeLogsExport(body, 'json')).toThrow(/resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[0\]\.eventName/);
  });
});

describe('which log records are kept', () => {
  it('keeps events inside a span that the caller reads, and says why the others were refused', () => {
    const result = partitionSpanLogRecords(expected, (name) => name === 'gen_ai.user.message');
    expect(result.accepted).toEqual([
      { traceId: TRACE, spanId: SPAN, timeUnixNano: '1700000000000000001', eventName: 'gen_ai.user.message', attributes: { 'gen_ai.system': 'openai' }, body: { content: 'Hi', n: 7 } },
    ]);
    expect(result.rejected).toBe(1);
    expect(result.errorMessage).toBe('rejected 1 of 2 log records: 1 without a span context (a record is kept as part of its span: it needs a valid traceId and spanId)');
  });

  it('takes the event name from the event.name attribute, and the observed time when the time is unset', () => {
    const inSpan: OtlpLogsExport = structuredClone(expected);
    const record = inSpan.resourceLogs[0]!.scopeLogs[0]!.logRecords[1]!;
    Object.assign(record, { traceId: TRACE, spanId: SPAN });
    const result = partitionSpanLogRecords(inSpan, (name) => name === 'gen_ai.choice');
    expect(result.accepted.map((r) => [r.eventName, r.timeUnixNano])).toEqual([['gen_ai.choice', '5']]);
    expect(result.errorMessage).toBe('rejected 1 of 2 log records: 1 not GenAI message or evaluation events (first: "gen_ai.user.message")');
  });
});
