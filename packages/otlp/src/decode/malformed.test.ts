/**
 * Hostile and broken bodies: whatever the bytes, decoding either succeeds or
 * throws OtlpDecodeError — never a TypeError, RangeError or stack overflow.
 */
import { describe, expect, it } from 'vitest';
import { decodeExport } from '../index.ts';
import { OtlpDecodeError } from '../errors.ts';
import type { OtlpEncoding } from '../types.ts';
import { encodeRequest, fieldTag, hex, rawMessage, rawSpanRequest, requestWithSpan } from '../testing/encode.ts';
import { randomBytes, randomInt, seededRandom } from '../testing/random.ts';

/** Decodes; returns 'ok' or 'rejected', and fails the test on any other error. */
function outcome(body: Uint8Array, encoding: OtlpEncoding): 'ok' | 'rejected' {
  try {
    decodeExport(body, encoding);
    return 'ok';
  } catch (err) {
    if (!(err instanceof OtlpDecodeError)) throw new Error(`not an OtlpDecodeError: ${String(err)}`, { cause: err });
    expect(err.message.length).toBeGreaterThan(0);
    return 'rejected';
  }
}

const richSpan = {
  parentSpanId: hex('53995c3f42cd8ad8'),
  kind: 2,
  attributes: [
    { key: 'gen_ai.prompt', value: { stringValue: 'Summarize: ' + 'lorem ipsum '.repeat(10) } },
    { key: 'tokens', value: { intValue: '-123456789012345' } },
    { key: 'temperature', value: { doubleValue: 0.7 } },
    { key: 'stream', value: { boolValue: true } },
    { key: 'blob', value: { bytesValue: new Uint8Array([1, 2, 3]) } },
    { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { arrayValue: { values: [{ intValue: 1 }] } }] } } },
    { key: 'meta', value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } } },
  ],
  events: [{ timeUnixNano: '1700000000000000005', name: 'e', attributes: [{ key: 'x', value: { intValue: 1 } }] }],
  links: [{ traceId: hex('0af7651916cd43dd8448eb211c80319c'), spanId: hex('b7ad6b7169203331'), flags: 1 }],
  status: { code: 2, message: 'failed' },
  flags: 1,
};

describe('malformed protobuf', () => {
  const valid = encodeRequest(requestWithSpan(richSpan));

  it('starts from a request that decodes', () => {
    expect(outcome(valid, 'protobuf')).toBe('ok');
  });

  it('rejects or decodes every truncation, and rejects most', () => {
    let rejected = 0;
    for (let length = 0; length < valid.length; length++) {
      if (outcome(valid.subarray(0, length), 'protobuf') === 'rejected') rejected++;
    }
    // Only cuts that land exactly between top-level fields can still parse.
    expect(rejected).toBeGreaterThan(valid.length * 0.95);
  });

  it('survives 500 random buffers', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 500; i++) outcome(randomBytes(random, randomInt(random, 300)), 'protobuf');
  });

  it('survives 1000 random corruptions of a valid request', () => {
    const random = seededRandom(8);
    for (let i = 0; i < 1000; i++) {
      const body = valid.slice();
      for (let flips = 1 + randomInt(random, 3); flips > 0; flips--) body[randomInt(random, body.length)] = randomInt(random, 256);
      outcome(body, 'protobuf');
    }
  });

  it('rejects attribute values nested 10,000 levels deep without overflowing the stack', () => {
    // AnyValue{array_value: ArrayValue{values: AnyValue{…}}}, built inside out
    // as reversed bytes so that prepending stays linear.
    const reversed: number[] = [];
    const prepend = (bytes: number[]) => {
      for (let i = bytes.length - 1; i >= 0; i--) reversed.push(bytes[i]!);
    };
    const varint = (n: number) => {
      const bytes: number[] = [];
      for (; n > 0x7f; n >>>= 7) bytes.push((n & 0x7f) | 0x80);
      bytes.push(n);
      return bytes;
    };
    for (let level = 0; level < 10_000; level++) {
      prepend([0x0a, ...varint(reversed.length)]); // ArrayValue.values
      prepend([0x2a, ...varint(reversed.length)]); // AnyValue.array_value
    }
    const value = Uint8Array.from(reversed.reverse());
    const keyValue = rawMessage((w) => w.uint32(fieldTag(1, 2)).string('deep').uint32(fieldTag(2, 2)).bytes(value));
    const body = rawSpanRequest((w) => w.uint32(fieldTag(9, 2)).bytes(keyValue));
    expect(outcome(body, 'protobuf')).toBe('rejected');
  });
});

describe('malformed JSON', () => {
  const json = JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 's' },
            spans: [
              {
                traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
                spanId: '00f067aa0ba902b7',
                name: 'span',
                kind: 'SPAN_KIND_CLIENT',
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000000000000001',
                attributes: [
                  { key: 'n', value: { intValue: '5' } },
                  { key: 'list', value: { arrayValue: { values: [{ doubleValue: 1.5 }, { kvlistValue: { values: [] } }] } } },
                ],
                events: [{ timeUnixNano: '1', name: 'e' }],
                links: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }],
                status: { code: 2, message: 'x' },
              },
            ],
          },
        ],
      },
    ],
  });
  const body = (text: string) => new TextEncoder().encode(text);

  it('rejects every truncation', () => {
    expect(outcome(body(json), 'json')).toBe('ok');
    for (let length = 0; length < json.length; length++) {
      expect(outcome(body(json.slice(0, length)), 'json')).toBe('rejected');
    }
  });

  it('survives values of random types anywhere in the tree', () => {
    const random = seededRandom(9);
    const junk = [null, 0, -1, 1.5, 'x', '', true, [], {}, [null], { values: 3 }, '99999999999999999999999'];
    const mutate = (node: unknown): unknown => {
      if (random() < 0.08) return junk[randomInt(random, junk.length)];
      if (Array.isArray(node)) return node.map(mutate);
      if (node !== null && typeof node === 'object') {
        return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, mutate(v)]));
      }
      return node;
    };
    const tree = JSON.parse(json) as unknown;
    let rejected = 0;
    for (let i = 0; i < 500; i++) {
      if (outcome(body(JSON.stringify(mutate(tree))), 'json') === 'rejected') rejected++;
    }
    expect(rejected).toBeGreaterThan(100);
  });

  it('survives random bytes and deep nesting', () => {
    const random = seededRandom(10);
    for (let i = 0; i < 300; i++) outcome(randomBytes(random, randomInt(random, 100)), 'json');
    outcome(body('['.repeat(100_000)), 'json');
    const deepValue = '{"arrayValue":{"values":['.repeat(5000) + ']}}'.repeat(5000);
    outcome(body(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":${deepValue}}]}]}]}]}`), 'json');
  });
});
