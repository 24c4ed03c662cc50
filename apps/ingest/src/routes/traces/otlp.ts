import { Hono, type Context } from 'hono';
import { contentTypeFor, encodeExportResponse, encodeLogsExportResponse, encodeMetricsExportResponse, encodeRpcStatus, type OtlpEncoding } from '@aos/otlp';
import { API_KEY_HEADER, ApiError } from '@aos/http';
import { BodyError, discardBody, readBody } from '../../body.ts';
import { IngestRefusal, type RefusalReason } from '../../pipeline/refusal.ts';
import type { ExportCall } from '../../pipeline/admission.ts';
import type { LogExportPipeline } from '../../pipeline/log-export.ts';
import type { MetricExportPipeline } from '../../pipeline/metric-export.ts';
import type { TraceExportPipeline } from '../../pipeline/trace-export.ts';
import type { BodyLease } from '../../pipeline/inflight-bytes.ts';
import { StageTimes } from '../../pipeline/stage-times.ts';

/** The pipelines behind the OTLP/HTTP paths, one per signal. */
export interface OtlpHttpPipelines {
  traces: TraceExportPipeline;
  logs: LogExportPipeline;
  metrics: MetricExportPipeline;
}

/** One signal's receiver: its limits, and its export answered as encoded response bytes. */
interface SignalReceiver {
  maxMessageBytes: number;
  retryAfterSeconds: number;
  exportAndEncode(call: ExportCall, encoding: OtlpEncoding): Promise<Uint8Array>;
}

/** gRPC status codes used in google.rpc.Status bodies. */
const GRPC = { CANCELLED: 1, INVALID_ARGUMENT: 3, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

/** OTLP/HTTP's answer to each refusal: exporters retry 429/502/503/504 only, after Retry-After. */
const REFUSAL_STATUS: Record<RefusalReason, { status: number; grpcCode: number; retry?: true }> = {
  unauthenticated: { status: 401, grpcCode: GRPC.UNAUTHENTICATED },
  permission_denied: { status: 403, grpcCode: GRPC.PERMISSION_DENIED },
  unsupported_format: { status: 415, grpcCode: GRPC.INVALID_ARGUMENT },
  invalid: { status: 400, grpcCode: GRPC.INVALID_ARGUMENT },
  too_large: { status: 413, grpcCode: GRPC.RESOURCE_EXHAUSTED },
  overloaded: { status: 503, grpcCode: GRPC.UNAVAILABLE, retry: true },
  unavailable: { status: 503, grpcCode: GRPC.UNAVAILABLE, retry: true },
  // Nobody reads this answer: Node has closed the connection (and answered 408 itself to a slow client).
  aborted: { status: 408, grpcCode: GRPC.CANCELLED },
};

/** The OTLP/HTTP trace, logs and metrics receivers; they answer in the protocol's own shapes, never the API envelope. */
export function otlpRoutes({ traces, logs, metrics }: OtlpHttpPipelines) {
  const app = new Hono();
  const traceReceiver: SignalReceiver = {
    ...limitsOf(traces),
    exportAndEncode: async (call, encoding) => encodeExportResponse(encoding, (await traces.export(call)).partial),
  };
  const logReceiver: SignalReceiver = {
    ...limitsOf(logs),
    exportAndEncode: async (call, encoding) => encodeLogsExportResponse(encoding, (await logs.export(call)).partial),
  };
  const metricReceiver: SignalReceiver = {
    ...limitsOf(metrics),
    exportAndEncode: async (call, encoding) => encodeMetricsExportResponse(encoding, (await metrics.export(call)).partial),
  };
  app.post('/', (c) => receive(c, traceReceiver));
  // Stock exporters given a base endpoint append the signal path.
  app.post('/v1/traces', (c) => receive(c, traceReceiver));
  app.post('/v1/logs', (c) => receive(c, logReceiver));
  app.post('/v1/metrics', (c) => receive(c, metricReceiver));
  // Anything else on these paths is a wrong method, not a trace id to look up.
  app.all('/', methodNotAllowed);
  app.all('/v1/traces', methodNotAllowed);
  app.all('/v1/logs', methodNotAllowed);
  app.all('/v1/metrics', methodNotAllowed);
  return app;
}

function limitsOf(pipeline: { maxMessageBytes: number; retryAfterSeconds: number }) {
  return { maxMessageBytes: pipeline.maxMessageBytes, retryAfterSeconds: pipeline.retryAfterSeconds };
}

function methodNotAllowed(c: Context): never {
  throw new ApiError('method_not_allowed', `${c.req.method} is not allowed here: OTLP exporters POST spans, log records and metrics`, [], { allow: 'POST' });
}

async function receive(c: Context, pipeline: SignalReceiver): Promise<Response> {
  const contentType = c.req.header('content-type');
  const encoding = encodingOf(contentType);
  const answerEncoding: OtlpEncoding = encoding ?? 'json';
  let bodyRead = false;
  const stages = new StageTimes();
  try {
    const call: ExportCall = {
      apiKey: c.req.header(API_KEY_HEADER),
      encoding:
        encoding ??
        new IngestRefusal(
          'unsupported_format',
          `unsupported Content-Type ${JSON.stringify(contentType ?? '')}: send application/x-protobuf or application/json`,
        ),
      readMessage: async (lease) => {
        const message = await readMessage(c.req.raw, pipeline.maxMessageBytes, lease);
        bodyRead = true;
        return message;
      },
      stages,
    };
    const answer = await pipeline.exportAndEncode(call, answerEncoding);
    return otlpResponse(200, answerEncoding, answer, { 'server-timing': stages.header() });
  } catch (err) {
    if (!(err instanceof IngestRefusal)) throw err;
    const { status, grpcCode, retry } = REFUSAL_STATUS[err.reason];
    const headers: Record<string, string> = { 'server-timing': stages.header() };
    if (retry) headers['retry-after'] = String(pipeline.retryAfterSeconds);
    // Refused before its body was read: the body is read and dropped first (for a moment), so
    // the client gets the answer rather than a reset, and the connection can carry the next
    // request. A body still arriving after that (a stalled or too-large one) cannot: the
    // client is told not to reuse the connection rather than find it closed under its next request.
    if (!bodyRead && !(await drained(c.req.raw, err.reason, pipeline.maxMessageBytes))) headers.connection = 'close';
    return otlpResponse(status, answerEncoding, encodeRpcStatus(answerEncoding, grpcCode, err.message), headers);
  }
}

/**
 * How long a refused body is read and dropped before the answer: while it keeps arriving (a 5 MB
 * body took 0.5 s to read on two busy
 * cores, a collector pause can stop the reading for a few hundred ms), for 1.5 s at most.
 */
const REFUSED_BODY_DRAIN = { idleMs: 500, totalMs: 1500 };

/** Whether a refused body was read to its end; one already over the size limit, or whose client went away, is not read on. */
function drained(request: Request, reason: RefusalReason, maxBytes: number): Promise<boolean> {
  if (reason === 'too_large' || reason === 'aborted') return Promise.resolve(false);
  return discardBody(request, { maxBytes, ...REFUSED_BODY_DRAIN });
}

const BODY_ERROR_REASON: Record<BodyError['kind'], RefusalReason> = {
  too_large: 'too_large',
  unsupported_encoding: 'unsupported_format',
  bad_encoding: 'invalid',
  aborted: 'aborted',
};

async function readMessage(request: Request, maxBytes: number, lease: BodyLease): Promise<Uint8Array> {
  try {
    return await readBody(request, maxBytes, (bytes) => lease.take(bytes));
  } catch (err) {
    if (!(err instanceof BodyError)) throw err;
    throw new IngestRefusal(BODY_ERROR_REASON[err.kind], err.message);
  }
}

function encodingOf(contentType: string | undefined): OtlpEncoding | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
}

function otlpResponse(status: number, encoding: OtlpEncoding, bytes: Uint8Array, headers: Record<string, string> = {}): Response {
  // Encoded bytes always sit on a plain ArrayBuffer; the DOM typings only want to be told.
  return new Response(bytes as Uint8Array<ArrayBuffer>, { status, headers: { 'content-type': contentTypeFor(encoding), ...headers } });
}
