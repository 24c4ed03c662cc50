import * as grpc from '@grpc/grpc-js';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as GrpcLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { LogRecord } from '@opentelemetry/api-logs';

/** A stock OTLP logs exporter pointed at the service's logs path, as a user would configure it. */
export function otlpLogExporter(kind: 'proto' | 'json' | 'grpc', target: string, key: string): LogRecordExporter {
  if (kind === 'grpc') {
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', key);
    return new GrpcLogExporter({ url: `http://${target}`, metadata });
  }
  const config = { url: `${target}/api/v1/traces/otlp/v1/logs`, headers: { 'x-api-key': key } };
  return kind === 'proto' ? new ProtoLogExporter(config) : new JsonLogExporter(config);
}

/** Emits log records through a logger provider over `exporter`, flushes them and shuts it down. */
export async function emitLogRecords(exporter: LogRecordExporter, records: LogRecord[]): Promise<void> {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'logs-test' }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('@opentelemetry/instrumentation-openai');
  for (const record of records) logger.emit(record);
  await provider.forceFlush();
  await provider.shutdown();
}
