import { describe, expect, it } from 'vitest';
import { decodeJsonExport } from './traces.ts';
import { OtlpDecodeError } from '../../errors.ts';
import { decodeExport } from '../../index.ts';
import type { OtlpSpan } from '../../types.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

function onlySpan(json: unknown): OtlpSpan {
  const decoded = decodeJsonExport(JSON.stringify(json));
  const spans = decoded.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

/** A request whose only span is `span`. */
const withSpan = (span: object) => ({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] });

const withAttributes = (attributes: unknown) =>
  onlySpan(withSpan({ traceId: TRACE_ID, spanId: SPAN_ID, name: 'n', attributes })).attributes;

function errorMessage(text: string): string {
  try {
    decodeJsonExport(text);
  } catch (err) {
    expect(err).toBeInstanceOf(OtlpDecodeError);
    return (err as Error).message;
  }
  throw new Error('expected an OtlpDecodeError');
}

describe('decodeJsonExport', () => {
  it('decodes the OTLP/JSON encoding', () => {
    const decoded = decodeJsonExport(
      JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }], droppedAttributesCount: 0 },
            scopeSpans: [
              {
                scope: { name: 'openinference', version: '1.0' },
                spans: [
                  {
                    traceId: TRACE_ID.toUpperCase(),
                    spanId: SPAN_ID,
                    parentSpanId: '53995c3f42cd8ad8',
                    traceState: 'a=b',
                    name: 'tool call',
                    kind: 1,
                    startTimeUnixNano: '1700000000123456789',
                    endTimeUnixNano: '1700000000223456789',
                    attributes: [{ key: 'tool.name', value: { stringValue: 'search' } }],
                    droppedAttributesCount: 2,
                    events: [{ timeUnixNano: '1700000000150000000', name: 'retry', attributes: [{ key: 'attempt', value: { intValue: '2' } }] }],
                    droppedEventsCount: 1,
                    links: [{ traceId: TRACE_ID, spanId: '53995c3f42cd8ad8', traceState: '', attributes: [] }],
                    status: { code: 2, message: 'timeout' },
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(decoded).toEqual({
      resourceSpans: [
        {
          resource: { attributes: { 'service.name': 'agent' } },
          scopeSpans: [
            {
              scope: { name: 'openinference', version: '1.0' },
              spans: [
                {
                  traceId: TRACE_ID,
                  spanId: SPAN_ID,
                  parentSpanId: '53995c3f42cd8ad8',
                  traceState: 'a=b',
                  name: 'tool call',
                  kind: 1,
                  startTimeUnixNano: '1700000000123456789',
                  endTimeUnixNano: '1700000000223456789',
                  attributes: { 'tool.name': 'search' },
                  droppedAttributesCount: 2,
                  events: [{ timeUnixNano: '1700000000150000000', name: 'retry', attributes: { attempt: 2 } }],
                  droppedEventsCount: 1,
                  links: [{ traceId: TRACE_ID, spanId: '53995c3f42cd8ad8', traceState: '', attributes: {} }],
                  status: { code: 2, message: 'timeout' },
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('accepts proto field names (snake_case), enum names, 64-bit numbers, nulls, and ignores unknown fields', () => {
    const decoded = decodeJsonExport(
      JSON.stringify({
        resource_spans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { string_value: 'svc' } }], dropped_attributes_count: '0' },
            schema_url: 'https://opentelemetry.io/schemas/1.21.0',
            future_field: { anything: [1, 2] },
            scope_spans: [
              {
                scope: { name: 'lib', version: null },
                spans: [
                  {
                    trace_id: TRACE_ID,
                    span_id: SPAN_ID,
                    parent_span_id: null,
                    trace_state: 'x=y',
                    flags: 257,
                    name: 'agent.run',
                    kind: 'SPAN_KIND_SERVER',
                    start_time_unix_nano: 1700000000000000000,
                    end_time_unix_nano: '1700000000500000000',
                    attributes: [
                      { key: 'count', value: { int_value: 5 } },
                      { key: 'big', value: { int_value: '9223372036854775807' } },
                      { key: 'ratio', value: { double_value: '0.5' } },
                      { key: 'ok', value: { bool_value: true } },
                      { key: 'raw', value: { bytes_value: '_-8' } },
                      { key: 'list', value: { array_value: { values: [{ int_value: '1' }, null, {}] } } },
                      { key: 'map', value: { kvlist_value: { values: [{ key: 'a', value: { string_value: 'b' } }] } } },
                    ],
                    dropped_attributes_count: 3,
                    events: [{ time_unix_nano: '5', name: 'e', unknown: true }],
                    dropped_events_count: '4',
                    links: [{ trace_id: TRACE_ID, span_id: SPAN_ID, trace_state: 'l=1', dropped_attributes_count: 1 }],
                    dropped_links_count: 9,
                    status: { code: 'STATUS_CODE_ERROR', message: 'bad', deprecated_code: 1 },
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(decoded.resourceSpans[0]!.resource.attributes).toEqual({ 'service.name': 'svc' });
    expect(decoded.resourceSpans[0]!.scopeSpans[0]!.scope).toEqual({ name: 'lib', version: '' });
    expect(decoded.resourceSpans[0]!.scopeSpans[0]!.spans[0]).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      parentSpanId: '',
      traceState: 'x=y',
      name: 'agent.run',
      kind: 2,
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000500000000',
      attributes: {
        count: 5,
        big: '9223372036854775807',
        ratio: 0.5,
        ok: true,
        raw: '/+8=',
        list: [1, null, null],
        map: { a: 'b' },
      },
      droppedAttributesCount: 3,
      events: [{ timeUnixNano: '5', name: 'e', attributes: {} }],
      droppedEventsCount: 4,
      links: [{ traceId: TRACE_ID, spanId: SPAN_ID, traceState: 'l=1', attributes: {} }],
      status: { code: 2, message: 'bad' },
    });
  });

  it('accepts every enum name and reads unknown enum numbers as 0', () => {
    const kinds = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];
    kinds.forEach((kind, n) => expect(onlySpan(withSpan({ kind })).kind).toBe(n));
    ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'].forEach((code, n) =>
      expect(onlySpan(withSpan({ status: { code } })).status.code).toBe(n),
    );
    expect(onlySpan(withSpan({ kind: 42, status: { code: 9 } }))).toMatchObject({ kind: 0, status: { code: 0 } });
  });

  it('fills defaults for absent fields and accepts an empty request', () => {
    expect(decodeJsonExport('{}')).toEqual({ resourceSpans: [] });
    expect(decodeJsonExport('{"resourceSpans":[]}')).toEqual({ resourceSpans: [] });
    expect(decodeJsonExport('{"resourceSpans":[{}]}')).toEqual({ resourceSpans: [{ resource: { attributes: {} }, scopeSpans: [] }] });
    expect(onlySpan(withSpan({}))).toEqual({
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

  it('decodes attribute values like the protobuf decoder does', () => {
    expect(
      withAttributes([
        { key: 'int', value: { intValue: 7 } },
        { key: 'intString', value: { intValue: '-7' } },
        { key: 'beyondSafe', value: { intValue: '9007199254740993' } },
        { key: 'double', value: { doubleValue: 2.5 } },
        { key: 'nan', value: { doubleValue: 'NaN' } },
        { key: 'inf', value: { doubleValue: 'Infinity' } },
        { key: 'bytes', value: { bytesValue: 'AAEC+vs=' } },
        { key: 'unpadded', value: { bytesValue: 'AAEC-vs' } },
        { key: 'empty', value: {} },
        { key: 'missing' },
        { key: 'nested', value: { kvlistValue: { values: [{ key: 'deeper', value: { arrayValue: { values: [{ boolValue: false }] } } }] } } },
        { key: 'int', value: { intValue: 8 } },
        { key: '__proto__', value: { stringValue: 'data' } },
      ]),
    ).toEqual({
      int: 8,
      intString: -7,
      beyondSafe: '9007199254740993',
      double: 2.5,
      nan: 'NaN',
      inf: 'Infinity',
      bytes: 'AAEC+vs=',
      unpadded: 'AAEC+vs=',
      empty: null,
      missing: null,
      nested: { deeper: [false] },
      ['__proto__']: 'data',
    });
  });

  it('keeps ids that are not valid hex, lowercased, for per-span validation', () => {
    const span = onlySpan(withSpan({ traceId: 'S9/ZHw==', spanId: 'ZZ', parentSpanId: '0000000000000000' }));
    expect(span).toMatchObject({ traceId: 's9/zhw==', spanId: 'zz', parentSpanId: '0000000000000000' });
  });

  describe('rejects, naming the path', () => {
    it('invalid JSON', () => {
      expect(errorMessage('{"resourceSpans": [')).toMatch(/^invalid JSON: /);
      expect(errorMessage('')).toMatch(/^invalid JSON: /);
    });

    it('a body that is not an object', () => {
      expect(errorMessage('[]')).toBe('(request): expected an object');
      expect(errorMessage('null')).toBe('(request): expected an object');
      expect(errorMessage('"x"')).toBe('(request): expected an object');
    });

    it('wrong types at every level', () => {
      const cases: [unknown, string][] = [
        [{ resourceSpans: {} }, 'resourceSpans: expected an array'],
        [{ resource_spans: 'x' }, 'resourceSpans: expected an array'],
        [{ resourceSpans: [null] }, 'resourceSpans[0]: expected an object'],
        [{ resourceSpans: [{ resource: [] }] }, 'resourceSpans[0].resource: expected an object'],
        [{ resourceSpans: [{ resource: { attributes: [{ key: 1 }] } }] }, 'resourceSpans[0].resource.attributes[0].key: expected a string'],
        [{ resourceSpans: [{ scopeSpans: [{ scope: { name: 5 } }] }] }, 'resourceSpans[0].scopeSpans[0].scope.name: expected a string'],
        [withSpan({ name: 5 }), 'resourceSpans[0].scopeSpans[0].spans[0].name: expected a string'],
        [withSpan({ traceId: 123 }), 'resourceSpans[0].scopeSpans[0].spans[0].traceId: expected a hex string'],
        [withSpan({ kind: 'SERVER' }), 'resourceSpans[0].scopeSpans[0].spans[0].kind: expected one of SPAN_KIND_UNSPECIFIED, SPAN_KIND_INTERNAL, SPAN_KIND_SERVER, SPAN_KIND_CLIENT, SPAN_KIND_PRODUCER, SPAN_KIND_CONSUMER or its number'],
        [withSpan({ kind: 1.5 }), 'resourceSpans[0].scopeSpans[0].spans[0].kind: expected one of SPAN_KIND_UNSPECIFIED, SPAN_KIND_INTERNAL, SPAN_KIND_SERVER, SPAN_KIND_CLIENT, SPAN_KIND_PRODUCER, SPAN_KIND_CONSUMER or its number'],
        [withSpan({ endTimeUnixNano: -1 }), 'resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano: expected an unsigned 64-bit integer'],
        [withSpan({ droppedAttributesCount: -1 }), 'resourceSpans[0].scopeSpans[0].spans[0].droppedAttributesCount: expected an unsigned 32-bit integer'],
        [withSpan({ status: { code: true } }), 'resourceSpans[0].scopeSpans[0].spans[0].status.code: expected one of STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR or its number'],
        [withSpan({ events: [{ timeUnixNano: '1.5' }] }), 'resourceSpans[0].scopeSpans[0].spans[0].events[0].timeUnixNano: expected an unsigned 64-bit integer'],
        [withSpan({ links: [{ attributes: {} }] }), 'resourceSpans[0].scopeSpans[0].spans[0].links[0].attributes: expected an array'],
        [withSpan({ attributes: [{ key: 'k', value: 'v' }] }), 'resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value: expected an object'],
        [withSpan({ attributes: [{ key: 'k', value: { intValue: '1e3' } }] }), 'resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.intValue: expected a signed 64-bit integer'],
        [withSpan({ attributes: [{ key: 'k', value: { boolValue: 'true' } }] }), 'resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.boolValue: expected true or false'],
        [withSpan({ attributes: [{ key: 'k', value: { doubleValue: 'fast' } }] }), 'resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.doubleValue: expected a number'],
        [withSpan({ attributes: [{ key: 'k', value: { bytesValue: 'not base64!' } }] }), 'resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.bytesValue: expected a base64 string'],
        [withSpan({ attributes: [{ key: 'k', value: { arrayValue: { values: [{}, 5] } } }] }), 'resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.arrayValue.values[1]: expected an object'],
        [withSpan({ attributes: [{ key: 'k', value: { kvlistValue: { values: [{ key: 'a', value: { stringValue: 1 } }] } } }] }), 'resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.kvlistValue.values[0].value.stringValue: expected a string'],
      ];
      for (const [json, message] of cases) expect(errorMessage(JSON.stringify(json))).toBe(message);
    });

    it('a bad timestamp deep in the request, with its exact path', () => {
      const good = { traceId: TRACE_ID, spanId: SPAN_ID, name: 'ok', startTimeUnixNano: '1' };
      const json = {
        resourceSpans: [
          { scopeSpans: [{ spans: [good] }, { spans: [good, good, good, { ...good, startTimeUnixNano: 'abc' }] }] },
        ],
      };
      expect(errorMessage(JSON.stringify(json))).toBe(
        'resourceSpans[0].scopeSpans[1].spans[3].startTimeUnixNano: expected an unsigned 64-bit integer',
      );
    });

    it('attribute values nested too deeply', () => {
      let value: object = { stringValue: 'leaf' };
      for (let i = 0; i < 65; i++) value = { arrayValue: { values: [value] } };
      expect(() => withAttributes([{ key: 'deep', value }])).toThrow(/nested deeper than 64 levels/);
    });
  });
});

describe('decodeExport with the JSON encoding', () => {
  const body = (text: string) => new TextEncoder().encode(text);

  it('decodes UTF-8 bodies, with or without a byte order mark', () => {
    const json = JSON.stringify(withSpan({ name: 'héllo' }));
    expect(decodeExport(body(json), 'json').resourceSpans[0]!.scopeSpans[0]!.spans[0]!.name).toBe('héllo');
    expect(decodeExport(body('\uFEFF' + json), 'json')).toEqual(decodeExport(body(json), 'json'));
  });

  it('rejects bodies that are not UTF-8 or not JSON', () => {
    expect(() => decodeExport(new Uint8Array([0x7b, 0xff, 0x7d]), 'json')).toThrow(OtlpDecodeError);
    expect(() => decodeExport(new Uint8Array([0x7b, 0xff, 0x7d]), 'json')).toThrow('invalid JSON: the body is not valid UTF-8');
    expect(() => decodeExport(body('nope'), 'json')).toThrow(OtlpDecodeError);
  });
});
