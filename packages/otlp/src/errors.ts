/**
 * Thrown by the decoders for any request body that cannot be decoded: malformed
 * protobuf, invalid JSON, or values of the wrong type. The message is meant for
 * the developer who sent the request (it is returned to them as the
 * google.rpc.Status message of a 400 response), so it names what was wrong and,
 * for JSON, where.
 */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
