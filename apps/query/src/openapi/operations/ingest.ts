import * as v from 'valibot';
import { jsonSchemaOf } from '../json-schema.ts';
import type { Answer, Operation } from '../operation.ts';

/**
 * The OTLP/HTTP trace, logs and metrics receivers, served by the ingest app and the all-in-one process. It
 * speaks OTLP's own shapes (docs/architecture.md, "What ingest does with a request"): the
 * bodies are opentelemetry.proto messages in protobuf or OTLP/JSON, errors a google.rpc.Status.
 */
const protobuf = { schema: { type: 'string', contentMediaType: 'application/x-protobuf' } } as const;

/** OTLP/JSON ExportTraceServiceRequest, down to the spans (their fields as the OTLP specification gives them). */
export const exportTraceServiceRequest = v.looseObject({
  resourceSpans: v.array(
    v.looseObject({
      resource: v.optional(v.looseObject({ attributes: v.optional(v.array(v.looseObject({ key: v.string() }))) })),
      scopeSpans: v.array(
        v.looseObject({
          scope: v.optional(v.looseObject({ name: v.optional(v.string()) })),
          spans: v.array(
            v.looseObject({
              traceId: v.pipe(v.string(), v.description('32 hex characters')),
              spanId: v.pipe(v.string(), v.description('16 hex characters')),
              name: v.string(),
              startTimeUnixNano: v.union([v.string(), v.number()]),
              endTimeUnixNano: v.optional(v.union([v.string(), v.number()])),
            }),
          ),
        }),
      ),
    }),
  ),
});

/** Spans that could not be stored are counted, with the reasons; the others were kept. */
export const exportTraceServiceResponse = v.object({
  partialSuccess: v.optional(
    v.object({ rejectedSpans: v.optional(v.union([v.string(), v.number()])), errorMessage: v.optional(v.string()) }),
  ),
});

/** OTLP/JSON ExportLogsServiceRequest, down to the records (only GenAI events inside a span are kept). */
export const exportLogsServiceRequest = v.looseObject({
  resourceLogs: v.array(
    v.looseObject({
      resource: v.optional(v.looseObject({ attributes: v.optional(v.array(v.looseObject({ key: v.string() }))) })),
      scopeLogs: v.array(
        v.looseObject({
          scope: v.optional(v.looseObject({ name: v.optional(v.string()) })),
          logRecords: v.array(
            v.looseObject({
              traceId: v.optional(v.pipe(v.string(), v.description('32 hex characters: the span the event belongs to'))),
              spanId: v.optional(v.pipe(v.string(), v.description('16 hex characters'))),
              eventName: v.optional(v.pipe(v.string(), v.description('gen_ai.user.message, gen_ai.choice, gen_ai.evaluation.result, …'))),
              timeUnixNano: v.optional(v.union([v.string(), v.number()])),
            }),
          ),
        }),
      ),
    }),
  ),
});

/** OTLP/JSON ExportMetricsServiceRequest, down to the metrics (only gen_ai.* metrics are kept). */
export const exportMetricsServiceRequest = v.looseObject({
  resourceMetrics: v.array(
    v.looseObject({
      resource: v.optional(v.looseObject({ attributes: v.optional(v.array(v.looseObject({ key: v.string() }))) })),
      scopeMetrics: v.array(
        v.looseObject({
          scope: v.optional(v.looseObject({ name: v.optional(v.string()) })),
          metrics: v.array(
            v.looseObject({
              name: v.pipe(v.string(), v.description('gen_ai.client.token.usage, gen_ai.client.operation.duration, …')),
              unit: v.optional(v.string()),
              histogram: v.optional(v.looseObject({ dataPoints: v.array(v.looseObject({})) })),
              sum: v.optional(v.looseObject({ dataPoints: v.array(v.looseObject({})) })),
              gauge: v.optional(v.looseObject({ dataPoints: v.array(v.looseObject({})) })),
            }),
          ),
        }),
      ),
    }),
  ),
});

/** Data points that were not kept are counted, with the reasons; the others were kept. */
export const exportMetricsServiceResponse = v.object({
  partialSuccess: v.optional(
    v.object({ rejectedDataPoints: v.optional(v.union([v.string(), v.number()])), errorMessage: v.optional(v.string()) }),
  ),
});

/** Records that were not kept are counted, with the reasons; the others were kept. */
export const exportLogsServiceResponse = v.object({
  partialSuccess: v.optional(
    v.object({ rejectedLogRecords: v.optional(v.union([v.string(), v.number()])), errorMessage: v.optional(v.string()) }),
  ),
});

export const rpcStatus = v.object({
  code: v.pipe(v.number(), v.integer(), v.description('gRPC status code')),
  message: v.string(),
  details: v.optional(v.array(v.unknown())),
});

function otlp(description: string, json: v.GenericSchema, headers?: Answer['headers']): Answer {
  return { description, json, content: { 'application/x-protobuf': protobuf }, ...(headers ? { headers } : {}) };
}

const refusal = (description: string) => otlp(`${description} (google.rpc.Status in the request's encoding)`, rpcStatus);

/** What one signal's receiver takes and answers on success. */
interface Signal {
  request: v.GenericSchema;
  response: v.GenericSchema;
  accepted: string;
}

const TRACES: Signal = {
  request: exportTraceServiceRequest,
  response: exportTraceServiceResponse,
  accepted: 'Accepted: ExportTraceServiceResponse, with partialSuccess when some spans were refused',
};

const LOGS: Signal = {
  request: exportLogsServiceRequest,
  response: exportLogsServiceResponse,
  accepted: 'Accepted: ExportLogsServiceResponse, with partialSuccess when some records were refused (outside a span, or not GenAI events)',
};

const METRICS: Signal = {
  request: exportMetricsServiceRequest,
  response: exportMetricsServiceResponse,
  accepted:
    'Accepted: ExportMetricsServiceResponse, with partialSuccess when some data points were refused (metrics other than gen_ai.*, exponential histograms and summaries, malformed points)',
};

function receiver(path: string, summary: string, signal: Signal = TRACES): Operation {
  return {
    method: 'post',
    path,
    summary,
    description:
      'Send the key as the x-api-key header. Content-Type application/x-protobuf or application/json, each with or without Content-Encoding: gzip. The answer is in the request\'s encoding, once the batch is in the queue.',
    scope: 'ingest',
    requestContent: { 'application/x-protobuf': protobuf, 'application/json': { schema: jsonSchemaOf(signal.request) } },
    responses: {
      200: otlp(signal.accepted, signal.response),
      400: refusal('Undecodable body; the message says where'),
      401: refusal('Missing, unknown or revoked key'),
      403: refusal('Key without the ingest scope'),
      413: refusal('Body over INGEST_MAX_BODY_BYTES after decompression'),
      415: refusal('Another content type or encoding'),
      503: otlp("The queue is full or holds more than INGEST_MAX_QUEUE_SECONDS of the writers' pace, ingest holds its in-flight budget, or Redis is unreachable: retry after Retry-After (google.rpc.Status)", rpcStatus, {
        'Retry-After': { description: 'seconds (INGEST_RETRY_AFTER_SECONDS)', schema: { type: 'integer' } },
      }),
    },
    ownErrors: true,
  };
}

export const ingestOperations: Operation[] = [
  receiver('/api/v1/traces/otlp', 'OTLP/HTTP traces'),
  receiver('/api/v1/traces/otlp/v1/traces', 'OTLP/HTTP traces, for exporters given a base endpoint (they append /v1/traces)'),
  receiver('/api/v1/traces/otlp/v1/logs', 'OTLP/HTTP logs: GenAI events of spans, joined to them; evaluation results as scores', LOGS),
  receiver('/api/v1/traces/otlp/v1/metrics', 'OTLP/HTTP metrics: GenAI metric points (gen_ai.*) stored, others counted as refused', METRICS),
];
