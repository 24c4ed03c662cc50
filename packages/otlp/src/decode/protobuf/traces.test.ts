import { describe, expect, it } from 'vitest';
import { decodeProtobufExport } from './traces.ts';
import { OtlpDecodeError } from '../../errors.ts';
import type { OtlpSpan } from '../../types.ts';
import { encodeRequest, fieldTag, hex, nested, rawMessage, rawSpanRequest, requestWithSpan } from '../../testing/encode.ts';

function onlySpan(body: Uint8Array): OtlpSpan {
  const decoded = decodeProtobufExport(body);
  const spans = decoded.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

function attributesOf(values: Record<string, object>): Record<string, unknown> {
  const span = onlySpan(
    encodeRequest(requestWithSpan({ attributes: Object.entries(values).map(([key, value]) => ({ key, value })) })),
  );
  return span.attributes;
}

function decodeError(body: Uint8Array): OtlpDecodeError {
  try {
    decodeProtobufExport(body);
  } catch (err) {
    expect(err).toBeInstanceOf(OtlpDecodeError);
    return err as OtlpDecodeError;
  }
  throw new Error('expected an OtlpDecodeError');
}

describe('decodeProtobufExport', () => {
  it('decodes an empty body as an empty export', () => {
    expect(decodeProtobufExport(new Uint8Array(0))).toEqual({ resourceSpans: [] });
  });

  it('decodes every span field', () => {
    const body = encodeRequest({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }], droppedAttributesCount: 4 },
          schemaUrl: 'https://opentelemetry.io/schemas/1.21.0',
          scopeSpans: [
            {
              scope: { name: 'openllmetry', version: '0.30.1', attributes: [{ key: 'x', value: { intValue: 1 } }] },
              schemaUrl: 'https://example.com',
              spans: [
                {
                  traceId: hex('4BF92F3577B34DA6A3CE929D0E0E4736'),
                  spanId: hex('00f067aa0ba902b7'),
                  parentSpanId: hex('53995c3f42cd8ad8'),
                  traceState: 'vendor=1',
                  flags: 0x301,
                  name: 'llm.chat',
                  kind: 3,
                  startTimeUnixNano: '1700000000123456789',
                  endTimeUnixNano: '18446744073709551615',
                  attributes: [{ key: 'a', value: { stringValue: 'b' } }],
                  droppedAttributesCount: 1,
                  events: [
                    { timeUnixNano: '1700000000200000000', name: 'exception', attributes: [{ key: 'exception.message', value: { stringValue: 'boom' } }], droppedAttributesCount: 2 },
                  ],
                  droppedEventsCount: 3,
                  links: [
                    { traceId: hex('0af7651916cd43dd8448eb211c80319c'), spanId: hex('b7ad6b7169203331'), traceState: 'k=v', attributes: [{ key: 'n', value: { intValue: 7 } }], droppedAttributesCount: 1, flags: 1 },
                  ],
                  droppedLinksCount: 5,
                  status: { code: 2, message: 'failed' },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(decodeProtobufExport(body)).toEqual({
      resourceSpans: [
        {
          resource: { attributes: { 'service.name': 'agent' } },
          scopeSpans: [
            {
              scope: { name: 'openllmetry', version: '0.30.1' },
              spans: [
                {
                  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
                  spanId: '00f067aa0ba902b7',
                  parentSpanId: '53995c3f42cd8ad8',
                  traceState: 'vendor=1',
                  name: 'llm.chat',
                  kind: 3,
                  startTimeUnixNano: '1700000000123456789',
                  endTimeUnixNano: '18446744073709551615',
                  attributes: { a: 'b' },
                  droppedAttributesCount: 1,
                  events: [{ timeUnixNano: '1700000000200000000', name: 'exception', attributes: { 'exception.message': 'boom' } }],
                  droppedEventsCount: 3,
                  links: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceState: 'k=v', attributes: { n: 7 } }],
                  status: { code: 2, message: 'failed' },
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('reads a plain Uint8Array view only within its bounds', () => {
    const body = encodeRequest(requestWithSpan({ name: 'viewed' }));
    const memory = new Uint8Array(body.length + 10).fill(0xff);
    memory.set(body, 4);
    expect(decodeProtobufExport(memory.subarray(4, 4 + body.length))).toEqual(decodeProtobufExport(body));
  });

  it('fills defaults for absent fields', () => {
    const body = rawSpanRequest(() => {});
    expect(onlySpan(body)).toEqual({
      traceId: '',
      spanId: '',
      parentSpanId: '',
      traceState: '',
      name: '',
      kind: 0,
      startTimeUnixNano: '0',
      endTimeUnixNano: '0',
      attributes: {},
      droppedAttributesCount: 0,
      events: [],
      droppedEventsCount: 0,
      links: [],
      status: { code: 0, message: '' },
    });
  });

  it('decodes every attribute value type', () => {
    expect(
      attributesOf({
        str: { stringValue: 'héllo ✓' },
        empty: { stringValue: '' },
        yes: { boolValue: true },
        no: { boolValue: false },
        int: { intValue: 42 },
        negative: { intValue: '-42' },
        maxSafe: { intValue: '9007199254740991' },
        beyondSafe: { intValue: '9007199254740993' },
        min: { intValue: '-9223372036854775808' },
        double: { doubleValue: 0.25 },
        nan: { doubleValue: NaN },
        inf: { doubleValue: -Infinity },
        bytes: { bytesValue: new Uint8Array([0, 1, 2, 250, 251]) },
        array: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }, {}, { arrayValue: { values: [{ boolValue: true }] } }] } },
        emptyArray: { arrayValue: {} },
        kvlist: { kvlistValue: { values: [{ key: 'model', value: { stringValue: 'gpt' } }, { key: 'n', value: { doubleValue: 1.5 } }, { key: 'missing' }] } },
        unset: {},
      }),
    ).toEqual({
      str: 'héllo ✓',
      empty: '',
      yes: true,
      no: false,
      int: 42,
      negative: -42,
      maxSafe: 9007199254740991,
      beyondSafe: '9007199254740993',
      min: '-9223372036854775808',
      double: 0.25,
      nan: 'NaN',
      inf: '-Infinity',
      bytes: 'AAEC+vs=',
      array: ['a', 1, null, [true]],
      emptyArray: [],
      kvlist: { model: 'gpt', n: 1.5, missing: null },
      unset: null,
    });
  });

  it('treats a KeyValue without a value as null and keeps the last duplicate key', () => {
    const body = rawSpanRequest((w) => {
      nested(w, 9, (w) => w.uint32(fieldTag(1, 2)).string('k'));
      nested(w, 9, (w) => {
        w.uint32(fieldTag(1, 2)).string('dup');
        nested(w, 2, (w) => w.uint32(fieldTag(3, 0)).int64(1));
      });
      nested(w, 9, (w) => {
        w.uint32(fieldTag(1, 2)).string('dup');
        nested(w, 2, (w) => w.uint32(fieldTag(3, 0)).int64(2));
      });
    });
    expect(onlySpan(body).attributes).toEqual({ k: null, dup: 2 });
  });

  it('stores a "__proto__" attribute as data without touching the prototype', () => {
    // A computed key: a literal `__proto__:` would set the prototype instead.
    const attributes = attributesOf({ ['__proto__']: { stringValue: 'x' }, ok: { intValue: 1 } });
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
    expect(Object.keys(attributes)).toEqual(['__proto__', 'ok']);
    expect(JSON.stringify(attributes)).toBe('{"__proto__":"x","ok":1}');
  });

  it('keeps ids of the wrong length as the hex of what was sent', () => {
    const span = onlySpan(encodeRequest(requestWithSpan({ traceId: hex('abcdef'), spanId: new Uint8Array(0), parentSpanId: hex('00') })));
    expect(span).toMatchObject({ traceId: 'abcdef', spanId: '', parentSpanId: '00' });
  });

  it('reads unknown enum values as unspecified/unset', () => {
    const span = onlySpan(encodeRequest(requestWithSpan({ kind: 9, status: { code: 7, message: 'm' } })));
    expect(span.kind).toBe(0);
    expect(span.status).toEqual({ code: 0, message: 'm' });
    const negative = onlySpan(rawSpanRequest((w) => w.uint32(fieldTag(6, 0)).int32(-1)));
    expect(negative.kind).toBe(0);
  });

  it('skips unknown fields of every wire type, including groups, at every level', () => {
    const unknown = (w: import('protobufjs').Writer): void => {
      w.uint32(fieldTag(100, 0)).uint64('18446744073709551615');
      w.uint32(fieldTag(101, 1)).fixed64(5);
      w.uint32(fieldTag(102, 2)).string('future field');
      w.uint32(fieldTag(103, 5)).fixed32(5);
      w.uint32(fieldTag(104, 3)).uint32(fieldTag(1, 0)).uint32(1).uint32(fieldTag(2, 3)).uint32(fieldTag(2, 4)).uint32(fieldTag(104, 4));
    };
    const body = rawMessage((w) => {
      unknown(w);
      nested(w, 1, (w) => {
        unknown(w);
        nested(w, 2, (w) => {
          unknown(w);
          nested(w, 2, (w) => {
            unknown(w);
            w.uint32(fieldTag(5, 2)).string('kept');
            nested(w, 9, (w) => {
              unknown(w);
              w.uint32(fieldTag(1, 2)).string('k');
              nested(w, 2, (w) => {
                unknown(w);
                w.uint32(fieldTag(1, 2)).string('v');
              });
            });
            nested(w, 15, (w) => {
              w.uint32(fieldTag(1, 0)).uint32(2); // reserved deprecated_code
              w.uint32(fieldTag(3, 0)).uint32(1);
            });
          });
        });
      });
    });
    const span = onlySpan(body);
    expect(span.name).toBe('kept');
    expect(span.attributes).toEqual({ k: 'v' });
    expect(span.status.code).toBe(1);
  });

  it('merges repeated singular message fields and keeps the last scalar', () => {
    const body = rawMessage((w) =>
      nested(w, 1, (w) => {
        nested(w, 1, (w) => nested(w, 1, (w) => w.uint32(fieldTag(1, 2)).string('a').uint32(fieldTag(2, 2)).fork().uint32(fieldTag(1, 2)).string('1').ldelim()));
        nested(w, 1, (w) => nested(w, 1, (w) => w.uint32(fieldTag(1, 2)).string('b').uint32(fieldTag(2, 2)).fork().uint32(fieldTag(1, 2)).string('2').ldelim()));
        nested(w, 2, (w) => {
          nested(w, 1, (w) => w.uint32(fieldTag(1, 2)).string('scope'));
          nested(w, 1, (w) => w.uint32(fieldTag(2, 2)).string('v2'));
          nested(w, 2, (w) => {
            w.uint32(fieldTag(5, 2)).string('first').uint32(fieldTag(5, 2)).string('second');
            nested(w, 15, (w) => w.uint32(fieldTag(2, 2)).string('msg'));
            nested(w, 15, (w) => w.uint32(fieldTag(3, 0)).uint32(2));
          });
        });
      }),
    );
    const [group] = decodeProtobufExport(body).resourceSpans;
    expect(group!.resource.attributes).toEqual({ a: '1', b: '2' });
    expect(group!.scopeSpans[0]!.scope).toEqual({ name: 'scope', version: 'v2' });
    expect(group!.scopeSpans[0]!.spans[0]).toMatchObject({ name: 'second', status: { code: 2, message: 'msg' } });
  });

  it('also decodes TracesData and requests with several resource and scope groups', () => {
    const decoded = decodeProtobufExport(
      encodeRequest({
        resourceSpans: [
          { scopeSpans: [{ spans: [{ name: 'a' }, { name: 'b' }] }, { spans: [] }] },
          { scopeSpans: [{ spans: [{ name: 'c' }] }] },
        ],
      }),
    );
    expect(decoded.resourceSpans.map((r) => r.scopeSpans.map((s) => s.spans.map((x) => x.name)))).toEqual([[['a', 'b'], []], [['c']]]);
  });

  describe('rejects', () => {
    it('truncated bodies with a bounds message', () => {
      const body = encodeRequest(requestWithSpan({}));
      const error = decodeError(body.subarray(0, body.length - 3));
      expect(error.message).toMatch(/^invalid protobuf: index out of range: \d+ \+ \d+ > \d+$/);
    });

    it('a nested length running past its parent', () => {
      // ResourceSpans of length 3 holding a ScopeSpans that claims 10 bytes.
      const body = new Uint8Array([0x0a, 0x03, 0x12, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
      expect(decodeError(body).message).toBe('invalid protobuf: index out of range: 4 + 10 > 5');
    });

    it('known fields with the wrong wire type', () => {
      const body = rawSpanRequest((w) => w.uint32(fieldTag(5, 0)).uint32(3));
      expect(decodeError(body).message).toBe(
        'invalid protobuf: Span.name (field 5) has wire type 0 (varint), expected 2 (length-delimited)',
      );
      const times = rawSpanRequest((w) => w.uint32(fieldTag(7, 0)).uint64(5));
      expect(decodeError(times).message).toContain('Span.start_time_unix_nano (field 7) has wire type 0');
      const flags = rawSpanRequest((w) => w.uint32(fieldTag(16, 0)).uint32(1));
      expect(decodeError(flags).message).toContain('Span.flags (field 16)');
      const request = rawMessage((w) => w.uint32(fieldTag(1, 0)).uint32(1));
      expect(decodeError(request).message).toContain('ExportTraceServiceRequest.resource_spans (field 1)');
      const value = rawSpanRequest((w) => nested(w, 9, (w) => nested(w, 2, (w) => w.uint32(fieldTag(4, 0)).uint32(1))));
      expect(decodeError(value).message).toContain('AnyValue.double_value (field 4) has wire type 0 (varint), expected 1 (i64)');
    });

    it('invalid wire types, field number 0, stray or unmatched end-group tags', () => {
      // Field 15 is unknown in ExportTraceServiceRequest; protobufjs reports the offset after the tag.
      expect(decodeError(new Uint8Array([0x7e])).message).toBe('invalid protobuf: invalid wire type 6 at offset 1');
      expect(decodeError(new Uint8Array([0x7f])).message).toContain('invalid wire type 7');
      expect(decodeError(new Uint8Array([0x0e])).message).toContain('resource_spans (field 1) has wire type 6 (invalid)');
      expect(decodeError(new Uint8Array([0x00, 0x00])).message).toBe('invalid protobuf: illegal tag: field number 0');
      expect(decodeError(new Uint8Array([0x7c])).message).toContain('invalid wire type 4');
      // A group opened as field 15 and closed as field 14.
      expect(decodeError(new Uint8Array([0x7b, 0x74])).message).toBe('invalid protobuf: invalid end group tag');
    });

    it('unterminated and over-long varints', () => {
      expect(decodeError(new Uint8Array([0x80])).message).toContain('index out of range');
      // Span > Status > code as an 11-byte varint.
      const field = (number: number, payload: number[]) => [fieldTag(number, 2), payload.length, ...payload];
      const code = [fieldTag(3, 0), ...new Array(10).fill(0xff), 0x01];
      const body = new Uint8Array(field(1, field(2, field(2, field(15, code)))));
      expect(decodeError(body).message).toBe('invalid protobuf: invalid varint encoding');
    });

    it('attribute values nested too deeply', () => {
      // Written raw: protobufjs' own encoder refuses such depths.
      const nestedArrays = (levels: number): Uint8Array =>
        rawSpanRequest((w) =>
          nested(w, 9, (w) => {
            w.uint32(fieldTag(1, 2)).string('deep');
            const writeValue = (w: import('protobufjs').Writer, level: number): void => {
              if (level === 0) {
                w.uint32(fieldTag(1, 2)).string('leaf');
                return;
              }
              nested(w, 5, (w) => nested(w, 1, (w) => writeValue(w, level - 1)));
            };
            nested(w, 2, (w) => writeValue(w, levels));
          }),
        );
      expect(decodeError(nestedArrays(65)).message).toBe('invalid protobuf: attribute values nested deeper than 64 levels');
      let expected: unknown = 'leaf';
      for (let i = 0; i < 64; i++) expected = [expected];
      expect(onlySpan(nestedArrays(64)).attributes).toEqual({ deep: expected });
    });
  });
});
