/**
 * Decodes an OTLP/JSON logs body (ExportLogsServiceRequest) into OtlpLogsExport, with the
 * trace decoder's readers (camelCase and proto field names both accepted, unknown fields
 * ignored, errors naming the path).
 */
import type { OtlpLogRecord, OtlpLogsExport, OtlpResourceLogs, OtlpScopeLogs } from '../../types.ts';
import type { JsonPath } from './path.ts';
import { type JsonObject, readEnum, readId, readString, readUint64 } from './fields.ts';
import { decodeJsonRequest, mapArray, readAnyValue, readAttributes, readResource, readScope } from './traces.ts';

/** SEVERITY_NUMBER_TRACE (1) … SEVERITY_NUMBER_FATAL4 (24): four levels per name. */
const SEVERITY_NUMBERS: ReadonlyMap<string, number> = new Map([
  ['SEVERITY_NUMBER_UNSPECIFIED', 0],
  ...['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].flatMap((level, i) =>
    [1, 2, 3, 4].map((n): [string, number] => [`SEVERITY_NUMBER_${level}${n === 1 ? '' : n}`, i * 4 + n]),
  ),
]);

/** Parses and decodes a complete OTLP/JSON logs export request. */
export function decodeJsonLogsExport(text: string): OtlpLogsExport {
  return decodeJsonRequest(text, (request, path) => ({
    resourceLogs: mapArray(request.resourceLogs ?? request.resource_logs, path, 'resourceLogs', readResourceLogs),
  }));
}

function readResourceLogs(o: JsonObject, path: JsonPath): OtlpResourceLogs {
  return { resource: readResource(o, path), scopeLogs: mapArray(o.scopeLogs ?? o.scope_logs, path, 'scopeLogs', readScopeLogs) };
}

function readScopeLogs(o: JsonObject, path: JsonPath): OtlpScopeLogs {
  return { scope: readScope(o, path), logRecords: mapArray(o.logRecords ?? o.log_records, path, 'logRecords', readLogRecord) };
}

function readLogRecord(o: JsonObject, path: JsonPath): OtlpLogRecord {
  return {
    timeUnixNano: readUint64(o.timeUnixNano ?? o.time_unix_nano, path, 'timeUnixNano'),
    observedTimeUnixNano: readUint64(o.observedTimeUnixNano ?? o.observed_time_unix_nano, path, 'observedTimeUnixNano'),
    severityNumber: readEnum(o.severityNumber ?? o.severity_number, path, 'severityNumber', SEVERITY_NUMBERS, 24),
    severityText: readString(o.severityText ?? o.severity_text, path, 'severityText'),
    body: readAnyValue(o.body, path, 'body', 0),
    attributes: readAttributes(o.attributes, path, 'attributes', 0),
    traceId: readId(o.traceId ?? o.trace_id, path, 'traceId'),
    spanId: readId(o.spanId ?? o.span_id, path, 'spanId'),
    eventName: readString(o.eventName ?? o.event_name, path, 'eventName'),
  };
}
