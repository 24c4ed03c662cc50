import { Hono, type Context } from 'hono';
import type { Queue } from 'bullmq';
import {
  OtlpDecodeError,
  contentTypeFor,
  decodeExport,
  encodeExportResponse,
  encodeRpcStatus,
  partitionValidSpans,
  type OtlpEncoding,
  type OtlpTraceExport,
} from '@aos/otlp';
import { maskExport, type CompiledPolicy } from '@aos/masking';
import { ApiError, authenticate, type KeyAuthenticator } from '@aos/http';
import type { SpanBatchPayload } from '@aos/queue';
import type { Logger } from '@aos/log';
import type { IngestSettings } from '@aos/config';
import { BodyError, readBody } from '../../body.ts';
import type { Backpressure } from '../../backpressure.ts';
import type { MaskingFindings } from '../../masking-findings.ts';
import type { IngestProjectSettings, ProjectSettingsSource } from '../../project-settings.ts';

export interface OtlpRouteDeps {
  auth: KeyAuthenticator;
  queue: Queue<SpanBatchPayload>;
  backpressure: Backpressure;
  settings: IngestSettings;
  projectSettings: ProjectSettingsSource;
  maskingFindings: MaskingFindings;
  logger: Logger;
}

/** gRPC status codes used in google.rpc.Status bodies. */
const GRPC = { INVALID_ARGUMENT: 3, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, INTERNAL: 13, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

/** A queue call that cannot reach Redis in this time is answered 503 so the exporter retries. */
const QUEUE_TIMEOUT_MS = 5_000;

/** The OTLP/HTTP trace receiver; answers in the protocol's own shapes, never the API envelope. */
export function otlpRoutes(deps: OtlpRouteDeps) {
  const app = new Hono();
  const handler = (c: Context) => receive(c, deps);
  app.post('/', handler);
  // Stock exporters given a base endpoint append the signal path.
  app.post('/v1/traces', handler);
  // Anything else on these paths is a wrong method, not a trace id to look up.
  app.all('/', methodNotAllowed);
  app.all('/v1/traces', methodNotAllowed);
  return app;
}

function methodNotAllowed(c: Context): never {
  throw new ApiError('method_not_allowed', `${c.req.method} is not allowed here: OTLP exporters POST spans`, [], { allow: 'POST' });
}

async function receive(c: Context, deps: OtlpRouteDeps): Promise<Response> {
  const encoding = encodingOf(c.req.header('content-type'));
  const answerEncoding: OtlpEncoding = encoding ?? 'json';
  const fail = (status: number, grpcCode: number, message: string, headers: Record<string, string> = {}) =>
    new Response(asBody(encodeRpcStatus(answerEncoding, grpcCode, message)), {
      status,
      headers: { 'content-type': contentTypeFor(answerEncoding), ...headers },
    });

  const retryAfter = { 'retry-after': String(deps.settings.retryAfterSeconds) };
  let projectId: string;
  try {
    projectId = (await authenticate(c, deps.auth, 'ingest')).projectId;
  } catch (err) {
    if (err instanceof ApiError) {
      return fail(err.status, err.status === 401 ? GRPC.UNAUTHENTICATED : GRPC.PERMISSION_DENIED, err.message);
    }
    // The key store could not be asked: transient, and exporters retry only 429/502/503/504.
    deps.logger.error('cannot check the API key', { error: err });
    return fail(503, GRPC.UNAVAILABLE, 'cannot check the API key right now; retry later', retryAfter);
  }
  if (!encoding) {
    return fail(
      415,
      GRPC.INVALID_ARGUMENT,
      `unsupported Content-Type ${JSON.stringify(c.req.header('content-type') ?? '')}: send application/x-protobuf or application/json`,
    );
  }
  let overloaded: boolean;
  try {
    overloaded = await withTimeout(deps.backpressure.overloaded(), QUEUE_TIMEOUT_MS);
  } catch (err) {
    deps.logger.error('cannot measure the queue depth', { error: err });
    return fail(503, GRPC.UNAVAILABLE, 'the ingest queue is unavailable; retry later', retryAfter);
  }
  if (overloaded) return fail(503, GRPC.UNAVAILABLE, 'the ingest queue is full; retry later', retryAfter);

  // Without the project's masking policy nothing may be queued: raw values would reach Redis.
  let projectSettings: IngestProjectSettings;
  try {
    projectSettings = await withTimeout(deps.projectSettings.get(projectId), QUEUE_TIMEOUT_MS);
  } catch (err) {
    deps.logger.error('cannot load the project settings', { projectId, error: err });
    return fail(503, GRPC.UNAVAILABLE, "cannot load the project's masking policy right now; retry later", retryAfter);
  }

  let body: Uint8Array;
  try {
    body = await readBody(c.req.raw, deps.settings.maxBodyBytes);
  } catch (err) {
    if (!(err instanceof BodyError)) throw err;
    if (err.kind === 'too_large') return fail(413, GRPC.RESOURCE_EXHAUSTED, err.message);
    if (err.kind === 'unsupported_encoding') return fail(415, GRPC.INVALID_ARGUMENT, err.message);
    return fail(400, GRPC.INVALID_ARGUMENT, err.message);
  }

  let decoded: ReturnType<typeof decodeExport>;
  try {
    decoded = decodeExport(body, encoding);
  } catch (err) {
    if (err instanceof OtlpDecodeError) return fail(400, GRPC.INVALID_ARGUMENT, err.message);
    throw err;
  }
  const receivedAtMs = Date.now();
  const result = partitionValidSpans(decoded, { nowUnixNano: BigInt(receivedAtMs) * 1_000_000n });
  const maskedRules = projectSettings.masking ? maskSpans(result.accepted, projectSettings.masking, projectId, deps.maskingFindings) : undefined;

  if (result.acceptedSpans > 0) {
    try {
      await withTimeout(
        deps.queue.add('batch', {
          projectId,
          receivedAtMs,
          export: result.accepted,
          ...(projectSettings.dimensionKeys.length > 0 ? { dimensionKeys: projectSettings.dimensionKeys } : {}),
          ...(maskedRules ? { maskedRules } : {}),
        }),
        QUEUE_TIMEOUT_MS,
      );
    } catch (err) {
      deps.logger.error('enqueue failed', { projectId, spans: result.acceptedSpans, error: err });
      return fail(503, GRPC.UNAVAILABLE, 'the ingest queue is unavailable; retry later', retryAfter);
    }
  }
  const partial = result.rejectedSpans > 0 ? { rejectedSpans: result.rejectedSpans, errorMessage: result.errorMessage } : undefined;
  return new Response(asBody(encodeExportResponse(encoding, partial)), {
    status: 200,
    headers: { 'content-type': contentTypeFor(encoding) },
  });
}

/**
 * Masks the accepted spans in place and returns the rules that fired per span, keyed by
 * the span's position in export order (how the writer walks the export), or undefined
 * when nothing fired.
 */
function maskSpans(
  accepted: OtlpTraceExport,
  policy: CompiledPolicy,
  projectId: string,
  findings: MaskingFindings,
): Record<string, string[]> | undefined {
  const masking = maskExport(accepted, policy);
  if (masking.spans.length === 0) return undefined;
  const outputHits = masking.spans.filter((s) => s.outputRules.length > 0);
  if (outputHits.length > 0) findings.record(projectId, outputHits.map((s) => ({ traceId: s.span.traceId, rules: s.outputRules })));
  return Object.fromEntries(masking.spans.map((s) => [s.position, s.rules]));
}

function encodingOf(contentType: string | undefined): OtlpEncoding | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
}

/** Encoded bytes always sit on a plain ArrayBuffer; the DOM typings only want to be told. */
function asBody(bytes: Uint8Array): BodyInit {
  return bytes as Uint8Array<ArrayBuffer>;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
