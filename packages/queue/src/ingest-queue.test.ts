import { describe, expect, it } from 'vitest';
import { countSpans } from './dead-letters.ts';
import { parseIngestJobPayload, type SpanBatchPayload, type SpanRowsKeyPayload, type SpanRowsPayload } from './ingest-queue.ts';
import { rowsKeyOf } from './span-rows-key.ts';

const rowsPayload: SpanRowsPayload = {
  projectId: 'p1',
  receivedAtMs: 1_700_000_000_000,
  rows: '["p1","trace-a"]\n["p1","trace-b"]\n',
  rowCount: 2,
  deploymentIds: [7],
  traceIds: ['trace-a', 'trace-b'],
  telemetryScores: [
    { id: 's1', traceId: 'trace-a', spanId: 'span-1', name: 'relevance', value: 0.5, label: null, explanation: '', responseId: null, timeMs: 1 },
  ],
};

const { rows: _inline, ...rowsFields } = rowsPayload;
const keyPayload: SpanRowsKeyPayload = { ...rowsFields, rowsKey: rowsKeyOf('aos', '0b9f3c1e-5c1a-4d0e-9a53-2f1f7d1c8e11') };

const exportPayload: SpanBatchPayload = {
  projectId: 'p1',
  receivedAtMs: 1_700_000_000_000,
  export: {
    resourceSpans: [
      {
        resource: { attributes: {} },
        scopeSpans: [
          {
            scope: { name: 's', version: '' },
            spans: [
              {
                traceId: 'trace-a',
                spanId: 'span-1',
                parentSpanId: '',
                traceState: '',
                name: 'x',
                kind: 1,
                startTimeUnixNano: '1',
                endTimeUnixNano: '2',
                attributes: {},
                droppedAttributesCount: 0,
                events: [],
                droppedEventsCount: 0,
                links: [],
                status: { code: 0, message: '' },
              },
            ],
          },
        ],
      },
    ],
  },
};

describe('ingest job payloads', () => {
  it('takes the rows-key shape as it is, naming a key beside the job\'s own', () => {
    expect(parseIngestJobPayload(keyPayload)).toEqual(keyPayload);
    expect(keyPayload.rowsKey).toBe('aos:span-batches:rows:0b9f3c1e-5c1a-4d0e-9a53-2f1f7d1c8e11');
  });

  it.each([
    ['an empty key', { ...keyPayload, rowsKey: '' }],
    ['a key that is not a string', { ...keyPayload, rowsKey: 7 }],
    ['no row count', { ...keyPayload, rowCount: undefined }],
    ['trace ids that are not strings', { ...keyPayload, traceIds: [1] }],
  ])('refuses a rows-key payload with %s', (_, data) => {
    expect(() => parseIngestJobPayload(data)).toThrow();
  });

  it('still takes the inline rows shape queued by the version before, rows untouched', () => {
    expect(parseIngestJobPayload(rowsPayload)).toEqual(rowsPayload);
  });

  it('still takes the export shape queued by an older version', () => {
    expect(parseIngestJobPayload(exportPayload)).toEqual(exportPayload);
  });

  it.each([
    ['rows that are not a string', { ...rowsPayload, rows: ['["p1"]'] }],
    ['no row count', { ...rowsPayload, rowCount: undefined }],
    ['a row count of 0', { ...rowsPayload, rowCount: 0 }],
    ['a fractional row count', { ...rowsPayload, rowCount: 1.5 }],
    ['no project', { ...rowsPayload, projectId: '' }],
    ['trace ids that are not strings', { ...rowsPayload, traceIds: [1] }],
    ['no deployment ids', { ...rowsPayload, deploymentIds: undefined }],
    ['a score without its value', { ...rowsPayload, telemetryScores: [{ ...rowsPayload.telemetryScores[0], value: undefined }] }],
  ])('refuses a rows payload with %s', (_, data) => {
    expect(() => parseIngestJobPayload(data)).toThrow();
  });

  it('refuses an export payload whose spans are broken, and what is neither shape', () => {
    expect(() => parseIngestJobPayload({ ...exportPayload, export: { resourceSpans: 'broken' } })).toThrow(/Array/);
    expect(() => parseIngestJobPayload({ projectId: 'p1', receivedAtMs: 1 })).toThrow();
    expect(() => parseIngestJobPayload(null)).toThrow();
  });
});

describe('countSpans (dead letters)', () => {
  it('counts the spans of every shape, rows by their row count', () => {
    expect(countSpans(keyPayload)).toBe(2);
    expect(countSpans(rowsPayload)).toBe(2);
    expect(countSpans(exportPayload)).toBe(1);
  });

  it('answers null for a payload too malformed to count', () => {
    expect(countSpans({ ...rowsPayload, rowCount: 'two' } as unknown as SpanRowsPayload)).toBeNull();
    expect(countSpans({ ...keyPayload, rowCount: -1 })).toBeNull();
    expect(countSpans({ ...exportPayload, export: { resourceSpans: 'broken' } } as unknown as SpanBatchPayload)).toBeNull();
  });
});
