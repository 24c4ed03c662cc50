import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

type GrpcExporterConfig = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;

/** The stock OTLP/gRPC exporter pointed at the service, as a user would configure it. */
export function grpcExporter(address: string, key: string, compression: 'gzip' | 'none' = 'none'): SpanExporter {
  const metadata = new grpc.Metadata();
  metadata.set('x-api-key', key);
  // CompressionAlgorithm is a string enum of an undeclared transitive package: its values are these strings.
  return new OTLPTraceExporter({ url: `http://${address}`, metadata, compression: compression as GrpcExporterConfig['compression'] });
}

/** Exports spans through an exporter once, as a span processor would, and shuts it down. */
export async function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
  await exporter.shutdown();
  if (result.code !== 0) throw result.error ?? new Error('export failed');
}

export interface RawExportOutcome {
  code: grpc.status;
  details: string;
  /** The ExportTraceServiceResponse bytes, on OK. */
  response: Buffer | null;
  /** The trailers of an error. */
  metadata: grpc.Metadata | null;
}

/**
 * A grpc-js client that sends bytes as they are (a pass-through serializer), so a test can
 * send what no exporter would: truncated messages, random bytes, oversized ones.
 */
export function rawExportClient(address: string, options: grpc.ClientOptions = {}) {
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), options);
  return {
    export(body: Uint8Array, key?: string): Promise<RawExportOutcome> {
      const metadata = new grpc.Metadata();
      if (key !== undefined) metadata.set('x-api-key', key);
      return new Promise((resolve) => {
        client.makeUnaryRequest(
          TRACE_EXPORT_PATH,
          (bytes: Buffer) => bytes,
          (bytes: Buffer) => bytes,
          Buffer.from(body),
          metadata,
          (err, response) => {
            if (err) resolve({ code: err.code, details: err.details, response: null, metadata: err.metadata });
            else resolve({ code: grpc.status.OK, details: '', response: response ?? Buffer.alloc(0), metadata: null });
          },
        );
      });
    },
    close: () => client.close(),
  };
}

// google.rpc.Status, RetryInfo and ExportTraceServiceResponse as the specification defines
// them, written out here so the tests read the answers without the service's own schema.
const root = protobuf.Root.fromJSON({
  nested: {
    Any: { fields: { typeUrl: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
    Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 }, details: { rule: 'repeated', type: 'Any', id: 3 } } },
    Duration: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
    RetryInfo: { fields: { retryDelay: { type: 'Duration', id: 1 } } },
    PartialSuccess: { fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } } },
    ExportResponse: { fields: { partialSuccess: { type: 'PartialSuccess', id: 1 } } },
  },
});

/** The RetryInfo delay (seconds) in an error's grpc-status-details-bin trailer; null when there is none. */
export function retryDelaySeconds(outcome: RawExportOutcome): number | null {
  const [details] = outcome.metadata?.get('grpc-status-details-bin') ?? [];
  if (!Buffer.isBuffer(details)) return null;
  const status = root.lookupType('Status').toObject(root.lookupType('Status').decode(details)) as { code: number; details?: Array<{ typeUrl: string; value: Uint8Array }> };
  if (status.code !== outcome.code) throw new Error(`grpc-status-details-bin says code ${status.code}, the call ${outcome.code}`);
  const retryInfo = status.details?.find((d) => d.typeUrl === 'type.googleapis.com/google.rpc.RetryInfo');
  if (!retryInfo) return null;
  const RetryInfo = root.lookupType('RetryInfo');
  return (RetryInfo.toObject(RetryInfo.decode(retryInfo.value), { longs: Number }) as { retryDelay: { seconds: number } }).retryDelay.seconds;
}

/** The partialSuccess of an ExportTraceServiceResponse; null when the answer is full success. */
export function partialSuccess(response: Buffer): { rejectedSpans: number; errorMessage: string } | null {
  const ExportResponse = root.lookupType('ExportResponse');
  const decoded = ExportResponse.toObject(ExportResponse.decode(response), { longs: Number, defaults: true }) as {
    partialSuccess?: { rejectedSpans: number; errorMessage: string };
  };
  return decoded.partialSuccess ?? null;
}
