/**
 * Decodes an OTLP/HTTP protobuf logs body (ExportLogsServiceRequest) into OtlpLogsExport,
 * reading the wire format with protobufjs' Reader like the trace decoder, with the resource,
 * scope and value readers of common.ts (field numbers: ../../proto/opentelemetry/proto/logs).
 */
import type { OtlpLogRecord, OtlpLogsExport, OtlpResourceLogs, OtlpScopeLogs } from '../../types.ts';
import { OtlpDecodeError } from '../../errors.ts';
import { FIELDS, WIRE_I32, WIRE_I64, WIRE_LEN, WIRE_VARINT, otherField, tag } from './fields.ts';
import { type Reader, cachedString, createReader, enter, hex, leave, uint64String } from './reader.ts';
import { decodeAnyValue, decodeKeyValueInto, decodeResourceInto, decodeScopeInto } from './common.ts';

/** Decodes a complete ExportLogsServiceRequest (or LogsData, which has the same shape). */
export function decodeProtobufLogsExport(body: Uint8Array): OtlpLogsExport {
  try {
    return decodeRequest(createReader(body));
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    // protobufjs' own errors for bad bytes; see decodeProtobufExport.
    throw new OtlpDecodeError(`invalid protobuf: ${(err as Error)?.message ?? String(err)}`, { cause: err });
  }
}

function decodeRequest(r: Reader): OtlpLogsExport {
  const resourceLogs: OtlpResourceLogs[] = [];
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === tag(1, WIRE_LEN)) {
      const outer = enter(r);
      resourceLogs.push(decodeResourceLogs(r));
      leave(r, outer);
    } else {
      otherField(r, t, FIELDS.ExportLogsServiceRequest);
    }
  }
  return { resourceLogs };
}

function decodeResourceLogs(r: Reader): OtlpResourceLogs {
  const group: OtlpResourceLogs = { resource: { attributes: {} }, scopeLogs: [] };
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === tag(1, WIRE_LEN)) {
      const outer = enter(r);
      decodeResourceInto(r, group.resource.attributes);
      leave(r, outer);
    } else if (t === tag(2, WIRE_LEN)) {
      const outer = enter(r);
      group.scopeLogs.push(decodeScopeLogs(r));
      leave(r, outer);
    } else if (t === tag(3, WIRE_LEN)) {
      r.skipType(WIRE_LEN); // schema_url: not kept
    } else {
      otherField(r, t, FIELDS.ResourceLogs);
    }
  }
  return group;
}

function decodeScopeLogs(r: Reader): OtlpScopeLogs {
  const group: OtlpScopeLogs = { scope: { name: '', version: '' }, logRecords: [] };
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === tag(1, WIRE_LEN)) {
      const outer = enter(r);
      decodeScopeInto(r, group.scope);
      leave(r, outer);
    } else if (t === tag(2, WIRE_LEN)) {
      const outer = enter(r);
      group.logRecords.push(decodeLogRecord(r));
      leave(r, outer);
    } else if (t === tag(3, WIRE_LEN)) {
      r.skipType(WIRE_LEN);
    } else {
      otherField(r, t, FIELDS.ScopeLogs);
    }
  }
  return group;
}

function decodeLogRecord(r: Reader): OtlpLogRecord {
  const record: OtlpLogRecord = {
    timeUnixNano: '0',
    observedTimeUnixNano: '0',
    severityNumber: 0,
    severityText: '',
    body: null,
    attributes: {},
    traceId: '',
    spanId: '',
    eventName: '',
  };
  while (r.pos < r.len) {
    const t = r.tag();
    switch (t) {
      case tag(1, WIRE_I64):
        record.timeUnixNano = uint64String(r.fixed64());
        break;
      case tag(11, WIRE_I64):
        record.observedTimeUnixNano = uint64String(r.fixed64());
        break;
      case tag(2, WIRE_VARINT):
        record.severityNumber = r.uint32();
        break;
      case tag(3, WIRE_LEN):
        record.severityText = r.string();
        break;
      case tag(5, WIRE_LEN): {
        const outer = enter(r);
        record.body = decodeAnyValue(r, 0);
        leave(r, outer);
        break;
      }
      case tag(6, WIRE_LEN):
        decodeKeyValueInto(r, record.attributes, 0);
        break;
      case tag(9, WIRE_LEN):
        record.traceId = hex(r);
        break;
      case tag(10, WIRE_LEN):
        record.spanId = hex(r);
        break;
      case tag(12, WIRE_LEN):
        record.eventName = cachedString(r);
        break;
      case tag(7, WIRE_VARINT): // dropped_attributes_count: not kept
        r.skipType(WIRE_VARINT);
        break;
      case tag(8, WIRE_I32): // flags: not kept
        r.skipType(WIRE_I32);
        break;
      default:
        otherField(r, t, FIELDS.LogRecord);
    }
  }
  return record;
}
