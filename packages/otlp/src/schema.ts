/**
 * The OTLP trace schema, loaded with protobufjs from the project's own .proto
 * files in ./proto. Loaded lazily on first use (parsing the files takes a few
 * milliseconds) and then shared: importing this package costs nothing until a
 * response is encoded.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** The directory the import paths inside the .proto files are relative to. */
const PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));

const PROTO_FILES = [
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'opentelemetry/proto/trace/v1/trace.proto',
  'opentelemetry/proto/collector/logs/v1/logs_service.proto',
  'opentelemetry/proto/collector/metrics/v1/metrics_service.proto',
  'google/rpc/status.proto',
  'google/rpc/error_details.proto',
];

export interface OtlpSchema {
  readonly root: protobuf.Root;
  readonly ExportTraceServiceRequest: protobuf.Type;
  readonly ExportTraceServiceResponse: protobuf.Type;
  readonly ExportTracePartialSuccess: protobuf.Type;
  readonly ExportLogsServiceRequest: protobuf.Type;
  readonly ExportLogsServiceResponse: protobuf.Type;
  readonly ExportMetricsServiceRequest: protobuf.Type;
  readonly ExportMetricsServiceResponse: protobuf.Type;
  readonly RpcStatus: protobuf.Type;
  readonly RetryInfo: protobuf.Type;
}

let schema: OtlpSchema | undefined;

/** Returns the loaded schema, parsing the .proto files on the first call. */
export function getOtlpSchema(): OtlpSchema {
  schema ??= loadSchema();
  return schema;
}

function loadSchema(): OtlpSchema {
  const root = new protobuf.Root();
  // Imports are written from the proto root ("opentelemetry/proto/…"), as
  // upstream does, not relative to the importing file. (protobufjs serves
  // google/protobuf/*.proto from its bundled copies before calling this.)
  root.resolvePath = (_origin, target) =>
    path.isAbsolute(target) ? target : path.join(PROTO_DIR, target);
  root.loadSync(PROTO_FILES);
  root.resolveAll();
  return {
    root,
    ExportTraceServiceRequest: root.lookupType(
      'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
    ),
    ExportTraceServiceResponse: root.lookupType(
      'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
    ),
    ExportTracePartialSuccess: root.lookupType(
      'opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess',
    ),
    ExportLogsServiceRequest: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
    ExportLogsServiceResponse: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse'),
    ExportMetricsServiceRequest: root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest'),
    ExportMetricsServiceResponse: root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse'),
    RpcStatus: root.lookupType('google.rpc.Status'),
    RetryInfo: root.lookupType('google.rpc.RetryInfo'),
  };
}

/**
 * The HTTP/2 path of a unary gRPC method declared in the .proto files
 * (`/<package>.<Service>/<Method>`); throws when the files do not declare it.
 */
export function grpcMethodPath(service: string, method: string): string {
  const declared = getOtlpSchema().root.lookupService(service);
  if (!declared.methods[method]) throw new Error(`${service} declares no method ${method}`);
  return `/${declared.fullName.replace(/^\./, '')}/${method}`;
}
