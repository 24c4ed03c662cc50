import type { OtlpGrpcSettings } from '@aos/config';
import { encodeExportResponse, encodeLogsExportResponse, encodeMetricsExportResponse, grpcMethodPath } from '@aos/otlp';
import type { Logger } from '@aos/log';
import type { LogExportPipeline } from '../pipeline/log-export.ts';
import type { MetricExportPipeline } from '../pipeline/metric-export.ts';
import type { TraceExportPipeline } from '../pipeline/trace-export.ts';
import type { OtlpGrpcService } from './export-handler.ts';
import { startOtlpGrpcServer, type OtlpGrpcServer } from './server.ts';

/** The pipelines the gRPC port hands exports to; the same ones the HTTP routes use. */
export interface OtlpPipelines {
  traces: TraceExportPipeline;
  logs: LogExportPipeline;
  metrics: MetricExportPipeline;
}

/**
 * The OTLP/gRPC receiver: every signal's Export service on OTLP_GRPC_PORT, each over its
 * pipeline (a new signal is one more entry here). Null when the port is 0 (turned off).
 */
export async function startOtlpGrpcReceiver(opts: {
  pipelines: OtlpPipelines;
  host: string;
  settings: OtlpGrpcSettings;
  logger: Logger;
}): Promise<OtlpGrpcServer | null> {
  if (opts.settings.port === 0) return null;
  const { traces, logs, metrics } = opts.pipelines;
  return startOtlpGrpcServer({
    host: opts.host,
    port: opts.settings.port,
    tls: opts.settings.tls,
    maxMessageBytes: traces.maxMessageBytes,
    retryAfterSeconds: traces.retryAfterSeconds,
    services: [traceService(traces), logsService(logs), metricsService(metrics)],
    logger: opts.logger,
  });
}

function traceService(pipeline: TraceExportPipeline): OtlpGrpcService {
  return {
    path: grpcMethodPath('opentelemetry.proto.collector.trace.v1.TraceService', 'Export'),
    export: async (call) => encodeExportResponse('protobuf', (await pipeline.export(call)).partial),
  };
}

function logsService(pipeline: LogExportPipeline): OtlpGrpcService {
  return {
    path: grpcMethodPath('opentelemetry.proto.collector.logs.v1.LogsService', 'Export'),
    export: async (call) => encodeLogsExportResponse('protobuf', (await pipeline.export(call)).partial),
  };
}

function metricsService(pipeline: MetricExportPipeline): OtlpGrpcService {
  return {
    path: grpcMethodPath('opentelemetry.proto.collector.metrics.v1.MetricsService', 'Export'),
    export: async (call) => encodeMetricsExportResponse('protobuf', (await pipeline.export(call)).partial),
  };
}
