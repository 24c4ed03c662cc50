import { describe, expect, it } from 'vitest';
import { decodeMetricsExport, encodeMetricsExportResponse, OtlpDecodeError, partitionMetricPoints } from '../index.ts';
import { getOtlpSchema } from '../schema.ts';

const attrs = (entries: Record<string, string>) => Object.entries(entries).map(([key, v]) => ({ key, value: { stringValue: v } }));
const usageAttrs = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.token.type': 'input' };

/** One request in protobufjs object form: a GenAI histogram, a GenAI sum, and metrics that are refused. */
const request = {
  resourceMetrics: [
    {
      resource: { attributes: attrs({ 'service.name': 'agent' }) },
      scopeMetrics: [
        {
          scope: { name: 'genai', version: '1.0.0' },
          metrics: [
            {
              name: 'gen_ai.client.token.usage',
              unit: '{token}',
              histogram: {
                aggregationTemporality: 2,
                dataPoints: [
                  {
                    attributes: attrs(usageAttrs),
                    startTimeUnixNano: '1700000000000000000',
                    timeUnixNano: '1700000060000000000',
                    count: '3',
                    sum: 120,
                    min: 10,
                    max: 70,
                    explicitBounds: [1, 100],
                    bucketCounts: ['0', '2', '1'],
                  },
                  // Bucket counts that do not fit the bounds: refused as malformed.
                  { timeUnixNano: '1700000060000000000', count: '1', explicitBounds: [1], bucketCounts: ['1'] },
                ],
              },
            },
            { name: 'gen_ai.client.operation.duration', unit: 's', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ timeUnixNano: '1700000060000000000', asInt: '4' }] } },
            { name: 'http.client.request.duration', histogram: { dataPoints: [{ timeUnixNano: '1', count: '1' }, { timeUnixNano: '2', count: '1' }] } },
            // A summary's points are counted, not read (the schema declares them as bytes).
            { name: 'gen_ai.server.time_to_first_token', summary: { dataPoints: [Uint8Array.of(0x19, 1, 0, 0, 0, 0, 0, 0, 0)] } },
          ],
        },
      ],
    },
  ],
};

function protobufBody(): Uint8Array {
  const { ExportMetricsServiceRequest } = getOtlpSchema();
  return ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromObject(request)).finish();
}

function jsonBody(): Uint8Array {
  const { ExportMetricsServiceRequest } = getOtlpSchema();
  // protobufjs' JSON form: int64 as strings, enums as names, as OTLP/JSON exporters send.
  const json = ExportMetricsServiceRequest.toObject(ExportMetricsServiceRequest.fromObject(request), { longs: String, enums: String, bytes: String });
  return new TextEncoder().encode(JSON.stringify(json));
}

describe('OTLP metrics decoding', () => {
  for (const [encoding, body] of [['protobuf', protobufBody], ['json', jsonBody]] as const) {
    it(`reads histograms, sums and the count of unread points (${encoding})`, () => {
      const decoded = decodeMetricsExport(body(), encoding);
      const [usage, duration, http, ttft] = decoded.resourceMetrics[0]!.scopeMetrics[0]!.metrics;
      expect(decoded.resourceMetrics[0]!.resource.attributes).toEqual({ 'service.name': 'agent' });
      expect(usage).toMatchObject({ name: 'gen_ai.client.token.usage', unit: '{token}', kind: 'histogram', temporality: 2, unreadPoints: 0 });
      expect(usage!.points[0]).toEqual({
        startTimeUnixNano: '1700000000000000000',
        timeUnixNano: '1700000060000000000',
        attributes: usageAttrs,
        value: null,
        count: 3,
        sum: 120,
        min: 10,
        max: 70,
        explicitBounds: [1, 100],
        bucketCounts: [0, 2, 1],
      });
      expect(duration).toMatchObject({ kind: 'sum', temporality: 1, points: [{ value: 4, timeUnixNano: '1700000060000000000' }] });
      expect(http).toMatchObject({ kind: 'histogram', temporality: 0 });
      expect(http!.points).toHaveLength(2);
      expect(ttft).toMatchObject({ kind: 'summary', points: [], unreadPoints: 1 });
    });
  }

  it('keeps GenAI points and counts the others with the reasons', () => {
    const result = partitionMetricPoints(decodeMetricsExport(protobufBody(), 'protobuf'), (name) => name.startsWith('gen_ai.'));
    expect(result.accepted.map((p) => [p.metric, p.kind, p.temporality, p.serviceName])).toEqual([
      ['gen_ai.client.token.usage', 'histogram', 'cumulative', 'agent'],
      ['gen_ai.client.operation.duration', 'sum', 'delta', 'agent'],
    ]);
    expect(result.rejected).toBe(4);
    expect(result.errorMessage).toMatch(/^rejected 4 of 6 data points: 2 of metrics other than .*"http\.client\.request\.duration"/);
    expect(result.errorMessage).toContain('1 of exponential histograms or summaries');
    expect(result.errorMessage).toContain('1 malformed');
  });

  it('gives a stream the same series whatever the attribute order, and another stream another', () => {
    const decoded = decodeMetricsExport(protobufBody(), 'protobuf');
    const point = decoded.resourceMetrics[0]!.scopeMetrics[0]!.metrics[0]!.points[0]!;
    const series = () => partitionMetricPoints(decoded, (name) => name === 'gen_ai.client.token.usage').accepted[0]!.series;
    const first = series();
    point.attributes = Object.fromEntries(Object.entries(point.attributes).reverse());
    expect(series()).toBe(first);
    point.attributes['gen_ai.token.type'] = 'output';
    expect(series()).not.toBe(first);
  });

  it('refuses undecodable bodies with the place of the fault', () => {
    expect(() => decodeMetricsExport(new TextEncoder().encode('{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"histogram":{"dataPoints":[{"count":"x"}]}}]}]}]}'), 'json')).toThrow(
      /resourceMetrics\[0\]\.scopeMetrics\[0\]\.metrics\[0\]\.histogram\.dataPoints\[0\]\.count/,
    );
    expect(() => decodeMetricsExport(Uint8Array.from([0x0a, 0x05, 0x12]), 'protobuf')).toThrow(OtlpDecodeError);
  });

  it('answers rejected points in ExportMetricsServiceResponse', () => {
    const { ExportMetricsServiceResponse } = getOtlpSchema();
    const bytes = encodeMetricsExportResponse('protobuf', { rejectedDataPoints: 2, errorMessage: 'why' });
    expect(ExportMetricsServiceResponse.toObject(ExportMetricsServiceResponse.decode(bytes), { longs: Number })).toEqual({ partialSuccess: { rejectedDataPoints: 2, errorMessage: 'why' } });
    expect(new TextDecoder().decode(encodeMetricsExportResponse('json', { rejectedDataPoints: 2, errorMessage: 'why' }))).toBe(
      '{"partialSuccess":{"rejectedDataPoints":"2","errorMessage":"why"}}',
    );
  });
});
