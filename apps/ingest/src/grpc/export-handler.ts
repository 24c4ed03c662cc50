import * as grpc from '@grpc/grpc-js';
import { API_KEY_HEADER } from '@aos/http';
import { encodeRetryableRpcStatus } from '@aos/otlp';
import type { Logger } from '@aos/log';
import type { ExportCall } from '../pipeline/admission.ts';
import { IngestRefusal, type RefusalReason } from '../pipeline/refusal.ts';

/** One OTLP service on the gRPC port: its Export method and the pipeline that answers it. */
export interface OtlpGrpcService {
  /** `/<package>.<Service>/Export`, as the .proto files declare it. */
  path: string;
  /** Runs one export through its pipeline; resolves to the encoded Export<Signal>ServiceResponse. */
  export(call: ExportCall): Promise<Uint8Array>;
}

/**
 * OTLP/gRPC's answer to each refusal (the specification's "Failures" and "Throttling"):
 * a full queue is RESOURCE_EXHAUSTED and an outage UNAVAILABLE, both with a RetryInfo, as
 * exporters retry RESOURCE_EXHAUSTED only when the server says it will recover. (An
 * oversized message never reaches the pipeline: grpc-js answers RESOURCE_EXHAUSTED
 * without RetryInfo, which exporters do not retry.)
 */
const REFUSAL_STATUS: Record<RefusalReason, { code: grpc.status; retry?: true }> = {
  unauthenticated: { code: grpc.status.UNAUTHENTICATED },
  permission_denied: { code: grpc.status.PERMISSION_DENIED },
  unsupported_format: { code: grpc.status.INVALID_ARGUMENT },
  invalid: { code: grpc.status.INVALID_ARGUMENT },
  too_large: { code: grpc.status.RESOURCE_EXHAUSTED },
  overloaded: { code: grpc.status.RESOURCE_EXHAUSTED, retry: true },
  unavailable: { code: grpc.status.UNAVAILABLE, retry: true },
  aborted: { code: grpc.status.CANCELLED },
};

/** The trailer that carries a google.rpc.Status with its details. */
const STATUS_DETAILS = 'grpc-status-details-bin';

/**
 * The method definition of an OTLP Export. Messages pass as bytes both ways: the
 * pipeline decodes requests itself (so an undecodable one is INVALID_ARGUMENT with the
 * decoder's reason, not grpc-js' INTERNAL), and responses come encoded.
 */
export function exportMethod(path: string): grpc.MethodDefinition<Buffer, Uint8Array> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestDeserialize: (bytes) => bytes,
    requestSerialize: (bytes) => bytes,
    responseSerialize: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    responseDeserialize: (bytes) => bytes,
  };
}

/** Hands each call to the service's pipeline and answers its result, refusal or failure. */
export function exportHandler(
  service: OtlpGrpcService,
  opts: { retryAfterSeconds: number; logger: Logger },
): grpc.handleUnaryCall<Buffer, Uint8Array> {
  return (call, callback) => {
    const [apiKey] = call.metadata.get(API_KEY_HEADER);
    service
      .export({
        apiKey: typeof apiKey === 'string' ? apiKey : undefined,
        // grpc-js has read, inflated and size-checked the message already.
        encoding: 'protobuf',
        readMessage: async (lease) => {
          lease.take(call.request.byteLength);
          return call.request;
        },
      })
      .then(
        (response) => callback(null, response),
        (err: unknown) => callback(errorStatus(err, service.path, opts)),
      );
  };
}

function errorStatus(err: unknown, path: string, opts: { retryAfterSeconds: number; logger: Logger }): Partial<grpc.StatusObject> {
  if (!(err instanceof IngestRefusal)) {
    opts.logger.error('OTLP/gRPC export failed', { path, error: err });
    return { code: grpc.status.INTERNAL, details: 'internal error; see the server log' };
  }
  const { code, retry } = REFUSAL_STATUS[err.reason];
  if (!retry) return { code, details: err.message };
  const metadata = new grpc.Metadata();
  metadata.set(STATUS_DETAILS, Buffer.from(encodeRetryableRpcStatus(code, err.message, opts.retryAfterSeconds)));
  return { code, details: err.message, metadata };
}
