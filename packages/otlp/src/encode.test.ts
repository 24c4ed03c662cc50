import { describe, expect, it } from 'vitest';
import { contentTypeFor, encodeExportResponse, encodeRetryableRpcStatus, encodeRpcStatus } from './encode.ts';
import { getOtlpSchema } from './schema.ts';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function decodeResponse(bytes: Uint8Array): Record<string, unknown> {
  const { ExportTraceServiceResponse } = getOtlpSchema();
  return ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(bytes), { longs: Number });
}

describe('contentTypeFor', () => {
  it('names the media type of each encoding', () => {
    expect(contentTypeFor('protobuf')).toBe('application/x-protobuf');
    expect(contentTypeFor('json')).toBe('application/json');
  });
});

describe('encodeExportResponse', () => {
  it('encodes full success as an empty message', () => {
    expect(encodeExportResponse('protobuf')).toEqual(new Uint8Array(0));
    expect(encodeExportResponse('protobuf', { rejectedSpans: 0, errorMessage: '' })).toEqual(new Uint8Array(0));
    expect(decodeResponse(encodeExportResponse('protobuf'))).toEqual({});
    expect(text(encodeExportResponse('json'))).toBe('{}');
    expect(text(encodeExportResponse('json', { rejectedSpans: 0, errorMessage: '' }))).toBe('{}');
  });

  it('encodes partial success', () => {
    const partial = { rejectedSpans: 3, errorMessage: 'rejected 3 of 10 spans: 3 with an empty name (first: …)' };
    expect(decodeResponse(encodeExportResponse('protobuf', partial))).toEqual({ partialSuccess: partial });
    expect(JSON.parse(text(encodeExportResponse('json', partial)))).toEqual({
      partialSuccess: { rejectedSpans: '3', errorMessage: partial.errorMessage },
    });
    expect(text(encodeExportResponse('json', { rejectedSpans: 2, errorMessage: 'say "hi"' }))).toBe(
      '{"partialSuccess":{"rejectedSpans":"2","errorMessage":"say \\"hi\\""}}',
    );
  });

  it('passes on a warning with nothing rejected', () => {
    const warning = { rejectedSpans: 0, errorMessage: 'attributes truncated' };
    expect(decodeResponse(encodeExportResponse('protobuf', warning))).toEqual({ partialSuccess: { errorMessage: 'attributes truncated' } });
    expect(JSON.parse(text(encodeExportResponse('json', warning)))).toEqual({
      partialSuccess: { rejectedSpans: '0', errorMessage: 'attributes truncated' },
    });
  });

  it('matches the wire bytes of the spec field numbers', () => {
    // partial_success (1, LEN) { rejected_spans (1, varint) = 3, error_message (2, LEN) = "x" }
    expect([...encodeExportResponse('protobuf', { rejectedSpans: 3, errorMessage: 'x' })]).toEqual([0x0a, 0x05, 0x08, 0x03, 0x12, 0x01, 0x78]);
  });
});

describe('encodeRpcStatus', () => {
  it('encodes a google.rpc.Status', () => {
    const { RpcStatus } = getOtlpSchema();
    const bytes = encodeRpcStatus('protobuf', 3, 'invalid protobuf: index out of range: 4 + 10 > 12');
    expect(RpcStatus.toObject(RpcStatus.decode(bytes))).toEqual({ code: 3, message: 'invalid protobuf: index out of range: 4 + 10 > 12' });
    // code (1, varint) = 8, message (2, LEN) = "m"
    expect([...encodeRpcStatus('protobuf', 8, 'm')]).toEqual([0x08, 0x08, 0x12, 0x01, 0x6d]);
  });

  it('encodes the JSON form', () => {
    expect(text(encodeRpcStatus('json', 3, 'resourceSpans: expected an array'))).toBe('{"code":3,"message":"resourceSpans: expected an array"}');
  });
});

describe('encodeRetryableRpcStatus', () => {
  it('packs a google.rpc.RetryInfo with the delay into the status details', () => {
    const { RpcStatus, RetryInfo } = getOtlpSchema();
    const status = RpcStatus.toObject(RpcStatus.decode(encodeRetryableRpcStatus(8, 'the ingest queue is full; retry later', 7)), { longs: Number });
    expect(status.code).toBe(8);
    expect(status.message).toBe('the ingest queue is full; retry later');
    expect(status.details).toHaveLength(1);
    // google.protobuf.Any's fields keep their .proto spelling in protobufjs.
    expect(status.details[0].type_url).toBe('type.googleapis.com/google.rpc.RetryInfo');
    expect(RetryInfo.toObject(RetryInfo.decode(status.details[0].value), { longs: Number })).toEqual({ retryDelay: { seconds: 7 } });
  });
});
