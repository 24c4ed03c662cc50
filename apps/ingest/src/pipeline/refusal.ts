/**
 * Why ingest turned an export away, whatever transport brought it. Each transport answers
 * a reason with its own status: routes/traces/otlp.ts (HTTP), grpc/export-handler.ts (gRPC).
 */
export type RefusalReason =
  /** Missing, unknown or revoked API key. */
  | 'unauthenticated'
  /** A key without the ingest scope. */
  | 'permission_denied'
  /** A Content-Type or Content-Encoding ingest does not take (HTTP only). */
  | 'unsupported_format'
  /** The message cannot be inflated or decoded. */
  | 'invalid'
  /** Over INGEST_MAX_BODY_BYTES after decompression. */
  | 'too_large'
  /** The queue is over its high-water mark: retry later. */
  | 'overloaded'
  /** Redis or the key store cannot be reached, or ingest holds its in-flight bytes budget: retry later. */
  | 'unavailable'
  /** The client closed the connection, or was cut off as too slow, before its message was read. */
  | 'aborted';

/** A refusal the exporter is told about; the message says why, for the developer who sent it. */
export class IngestRefusal extends Error {
  override readonly name = 'IngestRefusal';

  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}
