import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { roundCost } from '@aos/domain';
import { apiErrorHandler, createKeyAuthenticator, requireKey, type AuthEnv } from '@aos/http';
import { silentLogger } from '@aos/log';
import { createApiKey } from '@aos/storage';
import { traceExportRoutes } from '../../apps/query/src/routes/traces/export.ts';
import { exportRecordRoutes } from '../../apps/query/src/routes/traces/exports.ts';
import { spanExportRoutes } from '../../apps/query/src/routes/traces/spans/export.ts';
import { readJson, type ErrorBody, type ExportRecord, type Page, type TraceListItem } from '../support/api-types.ts';
import { eventually, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let otherKey: string;
/** The export routes with pages of 2 rows, so even this small data set is read in several chunks. */
let app: Hono<AuthEnv>;
/** The same routes with the default chunk size. */
let wholeApp: Hono<AuthEnv>;

const hex = (n: number) => n.toString(16).padStart(32, '0');
const FORMULA = '=HYPERLINK("http://evil")';
const AWKWARD_NAME = 'say "hi", then\nbye';
/** Text JSON must escape (backslash, tab, other control characters) and text it must not. */
const ESCAPED_INPUT = 'C:\\temp\tcol\u0001 end\u2028';
const PLAIN_OUTPUT = 'naïve café 😀 a/b </script>';

interface Crafted {
  id: string;
  env: string;
  spans: Array<{ name: string; ms: number; error?: boolean; attrs?: Record<string, string | number> }>;
}

// Five traces, oldest first, eleven spans in all.
const TRACES: Crafted[] = [
  {
    id: hex(0xe1),
    env: 'prod',
    spans: [
      { name: 'agent', ms: 900, attrs: { 'input.value': FORMULA, 'output.value': '@SUM(A1:A9)' } },
      {
        name: 'chat gpt-4o',
        ms: 500,
        attrs: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 100 },
      },
    ],
  },
  { id: hex(0xe2), env: 'prod', spans: [{ name: AWKWARD_NAME, ms: 200, error: true }] },
  {
    id: hex(0xe3),
    env: 'staging',
    spans: [
      { name: 'run', ms: 300, attrs: { 'session.id': 's1', 'user.id': 'u1', 'output.value': '-1+2' } },
      { name: 'tool', ms: 10, attrs: { 'openinference.span.kind': 'TOOL', 'tool.name': 'search' } },
      { name: 'tool', ms: 10 },
    ],
  },
  { id: hex(0xe4), env: 'dev', spans: [{ name: 'solo', ms: 40, attrs: { 'input.value': ESCAPED_INPUT, 'output.value': PLAIN_OUTPUT } }] },
  {
    // An HTTP root without text over an agent: the trace's texts are the agent's. Its model
    // calls name one model twice (undated, dated) and cost 0.1 + 0.2 = 0.30000000000000004.
    id: hex(0xe5),
    env: 'dev',
    spans: [
      { name: 'POST /chat', ms: 1000, attrs: { 'http.request.method': 'POST', 'http.response.status_code': 200 } },
      { name: 'support agent', ms: 900, attrs: { 'openinference.span.kind': 'AGENT', 'input.value': 'Where is my order?', 'output.value': 'It ships tomorrow.' } },
      { name: 'chat', ms: 300, attrs: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o', 'llm.cost.total': '0.1', 'output.value': 'draft' } },
      { name: 'chat', ms: 300, attrs: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-2024-08-06', 'llm.cost.total': '0.2' } },
    ],
  },
];
const SPAN_COUNT = TRACES.reduce((n, t) => n + t.spans.length, 0);

function body(trace: Crafted, base: number) {
  const value = (v: string | number) => (typeof v === 'number' ? { intValue: String(v) } : { stringValue: v });
  return {
    resource: { attributes: [{ key: 'deployment.environment.name', value: { stringValue: trace.env } }] },
    scopeSpans: [
      {
        spans: trace.spans.map((s, i) => ({
          traceId: trace.id,
          spanId: (i + 1).toString(16).padStart(16, '0'),
          parentSpanId: i === 0 ? '' : '0000000000000001',
          name: s.name,
          startTimeUnixNano: String(base + i * 1e6),
          endTimeUnixNano: String(base + i * 1e6 + s.ms * 1e6),
          status: { code: s.error ? 2 : 1 },
          attributes: Object.entries(s.attrs ?? {}).map(([key, v]) => ({ key, value: value(v) })),
        })),
      },
    ],
  };
}

function exportApp(chunkSize?: number): Hono<AuthEnv> {
  const storage = svc.service.storage;
  const deps = { storage, logger: silentLogger, ...(chunkSize ? { chunkSize } : {}) };
  const routes = new Hono<AuthEnv>();
  routes.use('*', requireKey(createKeyAuthenticator(storage, 0), 'read'));
  routes.route('/api/v1/traces/export', traceExportRoutes(deps));
  routes.route('/api/v1/traces/spans/export', spanExportRoutes(deps));
  routes.route('/api/v1/traces/exports', exportRecordRoutes(deps));
  routes.onError(apiErrorHandler(silentLogger));
  return routes;
}

beforeAll(async () => {
  svc = await startTestService();
  const now = Date.now() * 1e6;
  const res = await svc.api('/api/v1/traces/otlp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: TRACES.map((t, i) => body(t, now - (10 - i) * 60e9)) }),
  });
  expect(res.status).toBe(200);
  await eventually(async () => {
    const traces = await apiTraces('');
    return traces.reduce((n, t) => n + t.spanCount, 0) === SPAN_COUNT ? true : undefined;
  });
  otherKey = (await createApiKey(svc.service.storage, { projectId: 'other', name: 'other', scopes: ['read'] })).secret;
  app = exportApp(2);
  wholeApp = exportApp();
});
afterAll(async () => {
  await svc?.stop();
});

/** The traces API's answer, oldest first. */
async function apiTraces(query: string): Promise<TraceListItem[]> {
  const res = await svc.api(`/api/v1/traces?limit=500&sortOrder=asc&${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await readJson<Page<TraceListItem>>(res)).data;
}

function get(path: string, key: string = svc.key, on: Hono<AuthEnv> = app) {
  return on.request(`http://localhost${path}`, { headers: { 'x-api-key': key } });
}

async function listExports(key: string = svc.key): Promise<ExportRecord[]> {
  const res = await get('/api/v1/traces/exports?limit=500', key);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await readJson<Page<ExportRecord>>(res)).data;
}

/** An RFC 4180 reader: quoted cells may hold commas, CR/LF and doubled quotes; records end with CRLF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      record.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  expect(quoted, 'unterminated quoted cell').toBe(false);
  expect(cell === '' && record.length === 0, 'last record without CRLF').toBe(true);
  return records;
}

const TRACE_COLUMNS = [
  'traceId', 'name', 'startTime', 'endTime', 'durationMs', 'status', 'spanCount', 'errorCount', 'inputTokens',
  'outputTokens', 'totalTokens', 'cost', 'sessionId', 'userId', 'environment', 'serviceName', 'platform', 'models',
  'input', 'output',
] as const satisfies readonly (keyof TraceListItem)[];
const SPAN_COLUMNS = [
  'traceId', 'spanId', 'parentSpanId', 'name', 'type', 'kind', 'startTime', 'endTime', 'durationMs', 'status',
  'statusMessage', 'model', 'provider', 'inputTokens', 'outputTokens', 'totalTokens', 'cost', 'toolName', 'sessionId',
  'userId', 'qualityFlags', 'input', 'output',
];

/** What a value of the API should read as in the CSV: text starting like a formula gets an apostrophe. */
function expectedCell(value: unknown): string {
  if (value === null) return '';
  if (Array.isArray(value)) return expectedCell(value.join('|'));
  if (typeof value === 'number') return String(value);
  const text = String(value);
  return /^[=+\-@\t\r\n]/.test(text) ? `'${text}` : text;
}

const pick = <T extends object>(o: T, keys: readonly (keyof T)[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const jsonLines = (text: string) => {
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
};

describe('GET /traces/export', () => {
  it('streams CSV: attachment headers, the column set, one row per trace, oldest first', async () => {
    const res = await get('/api/v1/traces/export');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="traces-\d{8}T\d{6}Z\.csv"$/);
    expect(res.headers.get('content-length')).toBeNull();
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual(TRACE_COLUMNS);
    const traces = await apiTraces('');
    expect(rows.map((r) => r[0])).toEqual(TRACES.map((t) => t.id));
    expect(rows).toEqual(traces.map((t) => TRACE_COLUMNS.map((c) => expectedCell(t[c]))));
  });

  it('escapes formula cells and quotes commas, quotes and line breaks', async () => {
    const text = await (await get('/api/v1/traces/export')).text();
    const rows = parseCsv(text);
    const col = (name: (typeof TRACE_COLUMNS)[number]) => TRACE_COLUMNS.indexOf(name);
    const [, first, second, third] = rows;
    expect(first?.[col('input')]).toBe(`'${FORMULA}`);
    expect(first?.[col('output')]).toBe("'@SUM(A1:A9)");
    expect(first?.[col('models')]).toBe('gpt-4o');
    expect(first?.[col('inputTokens')]).toBe('1000');
    expect(second?.[col('name')]).toBe(AWKWARD_NAME);
    expect(second?.[col('status')]).toBe('error');
    expect(third?.[col('output')]).toBe("'-1+2");
    expect(text).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(text).toContain('"say ""hi"", then\nbye"');
    // No cell of the file starts a formula.
    expect(rows.flat().filter((cell) => /^[=+\-@]/.test(cell))).toEqual([]);
  });

  it('streams JSON Lines matching the traces API', async () => {
    const res = await get('/api/v1/traces/export?format=jsonl');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="traces-\d{8}T\d{6}Z\.jsonl"$/);
    const text = await res.text();
    const lines = jsonLines(text);
    const traces = await apiTraces('');
    expect(lines).toEqual(traces.map((t) => pick(t, TRACE_COLUMNS)));
    expect(lines[0]?.input).toBe(FORMULA); // JSON is not escaped: it is not read by spreadsheets
    expect(lines[1]?.name).toBe(AWKWARD_NAME);
    expect([lines[3]?.input, lines[3]?.output]).toEqual([ESCAPED_INPUT, PLAIN_OUTPUT]);
    // Written as JSON.stringify writes them (only what JSON requires is escaped), but for
    // U+2028, which the engine escapes too.
    expect(text.split('\n')[3]).toContain(`"input":${JSON.stringify(ESCAPED_INPUT).replace('\u2028', '\\u2028')},"output":${JSON.stringify(PLAIN_OUTPUT)}}`);
  });

  it("writes a trace whose root has no text with its agent's texts, one entry per model, and its cost rounded, byte for byte as the API answers it", async () => {
    const [api] = await apiTraces(`query=${encodeURIComponent('name = "POST /chat"')}`);
    expect(api).toMatchObject({ input: 'Where is my order?', output: 'It ships tomorrow.', models: ['gpt-4o-2024-08-06'], cost: 0.3 });
    const lines = (await (await get('/api/v1/traces/export?format=jsonl')).text()).split('\n');
    expect(lines[4]).toBe(JSON.stringify(pick(api!, TRACE_COLUMNS)));
    expect(lines[4]).toContain('"cost":0.3,');
    const csvLines = (await (await get('/api/v1/traces/export')).text()).split('\r\n');
    const cell = (value: unknown) =>
      typeof value === 'number' ? String(value) : value === null ? '""' : `"${expectedCell(value).replaceAll('"', '""')}"`;
    expect(csvLines[5]).toBe(TRACE_COLUMNS.map((c) => cell(api![c])).join(','));
    expect(csvLines[5]).toContain(',0.3,');
  });

  it('rounds costs in the engine exactly as roundCost does for the API', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const values = [0.1 + 0.2, 2.5e-10, 3.5e-10, 1.5e-10, 0.0035 + 0.0011, 1e-7, 123.456789012345, 0];
    for (let i = 0; i < 2000; i++) values.push(random() * 10 ** Math.floor(random() * 8 - 6));
    const result = await svc.service.storage.client.query({
      query: 'SELECT arrayMap(x -> toString(round(x, 10)), {values:Array(Float64)}) AS rounded',
      query_params: { values },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ rounded: string[] }>();
    expect(row!.rounded).toEqual(values.map((v) => String(roundCost(v))));
  });

  it('applies the trace filter', async () => {
    const csv = parseCsv(await (await get('/api/v1/traces/export?environment=prod')).text());
    expect(csv.slice(1).map((r) => r[0])).toEqual([hex(0xe1), hex(0xe2)]);
    const lines = jsonLines(await (await get('/api/v1/traces/export?format=jsonl&status=error')).text());
    expect(lines.map((l) => l.traceId)).toEqual([hex(0xe2)]);
    const none = await (await get('/api/v1/traces/export?search=nothing-like-this')).text();
    expect(none).toBe(`${TRACE_COLUMNS.join(',')}\r\n`);
  });

  it('gives the same file whatever the chunk size', async () => {
    for (const path of ['/api/v1/traces/export', '/api/v1/traces/export?format=jsonl', '/api/v1/traces/spans/export']) {
      const paged = await (await get(path)).text();
      const whole = await (await get(path, svc.key, wholeApp)).text();
      expect(paged, path).toBe(whole);
    }
  });
});

describe('the mounted routes of the service', () => {
  it('export traces and spans, and list the records, through the real API', async () => {
    const traces = await svc.api('/api/v1/traces/export?format=jsonl');
    expect(traces.status).toBe(200);
    expect(traces.headers.get('content-disposition')).toMatch(/attachment; filename="traces-/);
    const lines = (await traces.text()).trim().split('\n');
    expect(lines).toHaveLength((await apiTraces('')).length);
    const spans = await svc.api('/api/v1/traces/spans/export?format=csv');
    expect(spans.status).toBe(200);
    expect((await spans.text()).split('\n')[0]).toMatch(/^traceId,spanId,/);
    const records = await svc.api('/api/v1/traces/exports?limit=2');
    expect(records.status).toBe(200);
    expect((await readJson<Page<ExportRecord>>(records)).data[0]).toMatchObject({ kind: 'spans', format: 'csv', status: 'completed' });
  });
});

describe('GET /traces/spans/export', () => {
  it('writes one row per span of the matching traces, with the span columns', async () => {
    const res = await get('/api/v1/traces/spans/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="spans-\d{8}T\d{6}Z\.csv"$/);
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual(SPAN_COLUMNS);
    expect(rows).toHaveLength(SPAN_COUNT);
    const input = SPAN_COLUMNS.indexOf('input');
    expect(rows.find((r) => r[0] === hex(0xe1) && r[1] === '0000000000000001')?.[input]).toBe(`'${FORMULA}`);
  });

  it('streams JSON Lines in (start time, trace, span) order with the span fields', async () => {
    const lines = jsonLines(await (await get('/api/v1/traces/spans/export?format=jsonl')).text());
    expect(lines.map((l) => `${l.traceId}/${l.spanId}`)).toEqual(
      TRACES.flatMap((t) => t.spans.map((_, i) => `${t.id}/${(i + 1).toString(16).padStart(16, '0')}`)),
    );
    expect(Object.keys(lines[0] ?? {})).toEqual(SPAN_COLUMNS);
    const llm = lines.find((l) => l.traceId === hex(0xe1) && l.spanId === '0000000000000002');
    expect(llm).toMatchObject({ parentSpanId: '0000000000000001', type: 'llm', model: 'gpt-4o', inputTokens: 1000, outputTokens: 100 });
    expect(lines.find((l) => l.name === 'agent')).toMatchObject({ parentSpanId: null, input: FORMULA });
  });

  it('applies the trace filter to the traces whose spans it writes', async () => {
    const lines = jsonLines(await (await get('/api/v1/traces/spans/export?format=jsonl&environment=prod')).text());
    expect(lines.map((l) => l.traceId)).toEqual([hex(0xe1), hex(0xe1), hex(0xe2)]);
  });
});

describe('export records', () => {
  it('records who, when, what and how it ended; lists newest first', async () => {
    const before = Date.now();
    const res = await get('/api/v1/traces/export?format=jsonl&environment=prod');
    const bytes = Buffer.byteLength(await res.text());
    const exportId = res.headers.get('x-export-id');
    const [latest] = await listExports();
    expect(latest).toMatchObject({
      id: exportId,
      projectId: 'default',
      keyId: svc.service.createdKey?.id,
      kind: 'traces',
      format: 'jsonl',
      status: 'completed',
      rows: 2,
      bytes,
      error: null,
      filter: { projectId: 'default', environment: 'prod' },
    });
    expect(Date.parse(latest!.startedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(latest!.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(latest!.startedAt));

    await (await get('/api/v1/traces/spans/export')).text();
    const [spans, previous] = await listExports();
    expect(spans).toMatchObject({ kind: 'spans', format: 'csv', status: 'completed', rows: SPAN_COUNT });
    expect(previous?.id).toBe(exportId);
  });

  it('pages the list with a cursor', async () => {
    const all = await listExports();
    expect(all.length).toBeGreaterThan(2);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/v1/traces/exports?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const page = await readJson<Page<ExportRecord>>(res);
      paged.push(...page.data.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all.map((e) => e.id));
    expect((await get('/api/v1/traces/exports?cursor=bm9wZQ')).status).toBe(400);
  });

  it('records an export the client stopped reading as failed, with what was sent', async () => {
    const res = await get('/api/v1/traces/export');
    const reader = res.body!.getReader();
    const first = await reader.read();
    await reader.cancel();
    const record = await eventually(async () => {
      const found = (await listExports()).find((e) => e.id === res.headers.get('x-export-id'));
      return found?.status === 'failed' ? found : undefined;
    });
    expect(record.error).toMatch(/client closed the connection/);
    // The first piece holds the header and the first slice (at most 2 traces with this app).
    const sent = parseCsv(new TextDecoder().decode(first.value)).length - 1;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(TRACES.length);
    expect(record.rows).toBe(sent);
    expect(record.bytes).toBe(first.value?.byteLength);
  });
});

describe('access and input', () => {
  it('shows a key of another project no rows and no records', async () => {
    expect(await listExports(otherKey)).toEqual([]);
    expect(await (await get('/api/v1/traces/export', otherKey)).text()).toBe(`${TRACE_COLUMNS.join(',')}\r\n`);
    expect(await (await get('/api/v1/traces/spans/export?format=jsonl', otherKey)).text()).toBe('');
    const own = await listExports(otherKey);
    expect(own.map((e) => [e.projectId, e.rows, e.status])).toEqual([
      ['other', 0, 'completed'],
      ['other', 0, 'completed'],
    ]);
    expect((await listExports()).some((e) => e.projectId !== 'default')).toBe(false);
    expect((await get('/api/v1/traces/export?projectId=default', otherKey)).status).toBe(403);
    expect((await get('/api/v1/traces/exports?projectId=default', otherKey)).status).toBe(403);
  });

  it('refuses a bad format or filter with a 400 naming the parameter, and records nothing', async () => {
    const count = (await listExports()).length;
    for (const [query, field] of [
      ['format=xlsx', 'format'],
      ['format=csv&format=jsonl', 'format'],
      ['status=broken', 'status'],
      ['colour=red', 'colour'],
    ] as const) {
      for (const path of ['/api/v1/traces/export', '/api/v1/traces/spans/export']) {
        const res = await get(`${path}?${query}`);
        expect(res.status, `${path}?${query}`).toBe(400);
        expect(JSON.stringify((await readJson<ErrorBody>(res)).error)).toContain(field);
      }
    }
    expect((await get('/api/v1/traces/exports?limit=0')).status).toBe(400);
    expect(await listExports()).toHaveLength(count);
  });

  it('needs a key', async () => {
    const res = await app.request('http://localhost/api/v1/traces/export');
    expect(res.status).toBe(401);
  });
});
