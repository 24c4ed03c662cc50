import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Redis } from 'ioredis';
import { context, trace } from '@opentelemetry/api';
import { startProjectSettings } from '@aos/ingest';
import { silentLogger } from '@aos/log';
import { createApiKey } from '@aos/storage';
import { otlpExporter, tracerProvider } from './support/otel.ts';
import { eventually, startTestService, type TestService } from './support/service.ts';
import { readJson, type ErrorBody, type Finding, type MaskingPolicyBody, type MaskingTestBody, type Page, type SpanDetail, type TraceDetail, type TraceSummary } from './support/api-types.ts';
import { watchRedisCommands } from './support/redis-monitor.ts';

let svc: TestService;
let otherKey: string;

const RAW = {
  email: 'jane.doe@example.com',
  card: '4111 1111 1111 1111',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  apiKey: 'sk-proj-Abc123Def456Ghi789Jkl012Mno345',
  iban: 'DE89370400440532013000',
  employee: 'EMP-314159',
};

const POLICY = {
  rules: [
    { name: 'emails', detector: 'email', replacement: { style: 'hash' } },
    { name: 'cards', detector: 'credit_card', replacement: { style: 'keep_last', n: 4 } },
    { name: 'jwts', detector: 'jwt' },
    { name: 'secrets', detector: 'api_key', replacement: { style: 'fixed', text: '<secret>' } },
    { name: 'ibans', detector: 'iban', fields: { output: true } },
  ],
};

function post(path: string, body: unknown, key?: string) {
  return svc.api(`/api/v1/trace-masking${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(key ? { key } : {}),
  });
}

/** Sends one trace through the stock OTLP/protobuf exporter and waits until it is stored. */
async function sendTrace(build: (tracer: ReturnType<ReturnType<typeof tracerProvider>['getTracer']>) => string): Promise<string> {
  const provider = tracerProvider(otlpExporter('proto', svc.url, svc.key), { 'service.name': 'masking-test' });
  const traceId = build(provider.getTracer('masking-test'));
  await provider.forceFlush();
  await provider.shutdown();
  await eventually(async () => ((await svc.api(`/api/v1/traces/${traceId}`)).status === 200 ? true : undefined));
  return traceId;
}

async function storedSpanText(traceId: string): Promise<string> {
  const result = await svc.service.storage.client.query({
    query: 'SELECT * FROM spans FINAL WHERE trace_id = {traceId:String}',
    query_params: { traceId },
    format: 'JSONEachRow',
  });
  return result.text();
}

beforeAll(async () => {
  svc = await startTestService();
  otherKey = (await createApiKey(svc.service.storage, { projectId: 'other', name: 'other', scopes: ['read', 'write', 'ingest'] })).secret;
});
afterAll(async () => {
  await svc?.stop();
});

describe('masking policy', () => {
  it('is empty until one is saved, and the catalogue of detectors is listed', async () => {
    const body = await readJson<MaskingPolicyBody>(await svc.api('/api/v1/trace-masking'));
    expect(body.policy).toEqual({ rules: [] });
    expect(body.updatedAt).toBeNull();
    expect(body.detectors).toEqual(
      expect.arrayContaining(['email', 'phone', 'credit_card', 'iban', 'national_id', 'ip_address', 'api_key', 'bearer_token', 'jwt', 'private_key']),
    );
  });

  it('refuses invalid policies, naming every problem', async () => {
    const res = await post('', {
      rules: [
        { name: 'broken', pattern: '(unclosed' },
        { name: 'redos', pattern: '(a+)+$' },
        { name: 'empty', pattern: 'x*' },
        { name: 'what', detector: 'horoscope' },
        { name: 'what', detector: 'email', colour: 'red' },
      ],
    });
    expect(res.status).toBe(400);
    const error = (await readJson<ErrorBody>(res)).error;
    const fields = error.details.map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['body.rules.0.pattern', 'body.rules.1.pattern', 'body.rules.2.pattern', 'body.rules.3.detector']));
    expect(error.details.find((d) => d.field === 'body.rules.1.pattern')?.message).toMatch(/backtrack/);
    expect(error.message).toMatch(/rules\.0\.pattern/);
    for (const bad of ['not json', '{"rules":"all"}', '{}']) expect((await post('', bad)).status).toBe(400);
    // Nothing was stored.
    expect((await readJson<MaskingPolicyBody>(await svc.api('/api/v1/trace-masking'))).policy).toEqual({ rules: [] });
  });

  it('tries a draft on sample text: masked text and matches with positions, nothing stored', async () => {
    const text = `mail ${RAW.email}, card ${RAW.card}`;
    const res = await post('/test', { policy: POLICY, text });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await readJson<MaskingTestBody>(res);
    expect(body.masked).toMatch(/^mail \[EMAIL:[0-9a-f]{10}\], card \*{4} \*{4} \*{4} 1111$/);
    expect(body.matches).toEqual([
      { rule: 'emails', detector: 'email', start: 5, end: 5 + RAW.email.length },
      { rule: 'cards', detector: 'credit_card', start: text.indexOf(RAW.card), end: text.length },
    ]);
    // Only the rules for the named field apply: ibans is an output-only rule.
    const input = await readJson<MaskingTestBody>(await post('/test', { policy: POLICY, text: RAW.iban, field: 'input' }));
    expect(input).toEqual({ masked: RAW.iban, matches: [] });
    const output = await readJson<MaskingTestBody>(await post('/test', { policy: POLICY, text: RAW.iban, field: 'output' }));
    expect(output.masked).toBe('[IBAN]');
    expect((await post('/test', { policy: { rules: [{ name: 'x', pattern: '(a|a)*b' }] }, text: 'aaa' })).status).toBe(400);
    expect((await readJson<MaskingPolicyBody>(await svc.api('/api/v1/trace-masking'))).policy).toEqual({ rules: [] });
  });

  it('masks at ingest: no raw value reaches Redis or ClickHouse, and masked spans are marked and counted', async () => {
    const saved = await post('', POLICY);
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect((await readJson<MaskingPolicyBody>(saved)).updatedAt).not.toBeNull();

    // Every command Redis receives while the trace goes through the queue.
    const watch = await watchRedisCommands();
    const commands = watch.commands;

    const traceId = await sendTrace((tracer) => {
      const root = tracer.startSpan('agent', {
        attributes: { 'input.value': `Refund ${RAW.email} on card ${RAW.card}`, 'output.value': `Wire it to ${RAW.iban}` },
      });
      root.addEvent('auth', { header: `token ${RAW.jwt}` });
      const tool = tracer.startSpan(
        'call-api',
        { attributes: { 'tool.name': 'payments', config: `key=${RAW.apiKey}` } },
        trace.setSpan(context.active(), root),
      );
      tool.end();
      root.end();
      return root.spanContext().traceId;
    });
    watch.stop();

    const queued = commands.join('\n');
    expect(queued).toContain('masking-test'); // the monitor did see the batch
    const stored = await storedSpanText(traceId);
    for (const raw of [RAW.email, RAW.card, RAW.jwt, RAW.apiKey, RAW.iban, RAW.card.replaceAll(' ', '')]) {
      expect(queued, raw).not.toContain(raw);
      expect(stored, raw).not.toContain(raw);
    }
    expect(stored).toMatch(/\[EMAIL:[0-9a-f]{10}\]/);
    expect(stored).toContain('<secret>');

    const record = await readJson<TraceDetail>(await svc.api(`/api/v1/traces/${traceId}`));
    expect(record.maskedSpanCount).toBe(2);
    const root = record.spans[0]!;
    expect(root.maskedRules).toEqual(['cards', 'emails', 'ibans', 'jwts']);
    expect(root.children[0]?.maskedRules).toEqual(['secrets']);
    const detail = await readJson<SpanDetail>(await svc.api(`/api/v1/traces/${traceId}/spans/${root.spanId}`));
    expect(detail.input).toMatch(/^Refund \[EMAIL:[0-9a-f]{10}\] on card \*{4} \*{4} \*{4} 1111$/);
    expect(detail.output).toBe('Wire it to [IBAN]');

    const summary = await readJson<TraceSummary>(await svc.api('/api/v1/traces/summary'));
    expect(summary.maskedSpanCount).toBe(2);
    expect(summary.maskedRuleCounts).toEqual({ cards: 1, emails: 1, ibans: 1, jwts: 1, secrets: 1 });
  });

  it('raises one finding for sensitive data masked in outputs, with the traces as evidence', async () => {
    // ibans is the rule that fired on an output above; the hits are raised every few seconds.
    const finding = await eventually(async () => {
      const res = await svc.api('/api/v1/trace-findings?investigator=masking');
      const body = await readJson<Page<Finding>>(res);
      return body.data.length > 0 ? body.data : undefined;
    });
    expect(finding).toHaveLength(1);
    expect(finding[0]).toMatchObject({
      status: 'open',
      severity: 'high',
      investigator: { kind: 'masking', id: 'ibans' },
      occurrences: 1,
    });
    expect(finding[0]?.evidence).toHaveLength(1);
  });

  it('applies a replaced policy to the very next request', async () => {
    const res = await post('', { rules: [{ name: 'employee-id', pattern: '\\bEMP-\\d{6}\\b' }] });
    expect(res.status).toBe(200);
    const traceId = await sendTrace((tracer) => {
      const span = tracer.startSpan('lookup', { attributes: { 'input.value': `who is ${RAW.employee}? mail ${RAW.email}` } });
      span.end();
      return span.spanContext().traceId;
    });
    const stored = await storedSpanText(traceId);
    expect(stored).not.toContain(RAW.employee);
    expect(stored).toContain('[EMPLOYEE_ID]');
    // The email rule is gone with the old policy.
    expect(stored).toContain(RAW.email);
  });

  it('reaches the copy held by another ingest process within seconds', async () => {
    // A second holder of project settings, as a separate ingest process has: its own
    // Redis subscription, the same storage.
    const connection = new Redis(inject('redisUrl'));
    const other = await startProjectSettings({
      storage: svc.service.storage,
      connection,
      prefix: svc.env.QUEUE_PREFIX!,
      ttlMs: 60_000, // far beyond the test: only the announcement can refresh it
      hashKey: '',
      logger: silentLogger,
    });
    try {
      const before = await other.get('default');
      expect(before.masking?.policy.rules.map((r) => r.name)).toEqual(['employee-id']);
      expect((await post('', { rules: [{ name: 'ssn', detector: 'national_id' }] })).status).toBe(200);
      const started = Date.now();
      const after = await eventually(async () => {
        const names = (await other.get('default')).masking?.policy.rules.map((r) => r.name);
        return names?.[0] === 'ssn' ? names : undefined;
      }, 5_000);
      expect(after).toEqual(['ssn']);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await other.close();
      connection.disconnect();
    }
  });

  it('keeps policies per project', async () => {
    const theirs = await readJson<MaskingPolicyBody>(await svc.api('/api/v1/trace-masking', { key: otherKey }));
    expect(theirs.policy).toEqual({ rules: [] });
    expect((await post('', { rules: [{ name: 'mails', detector: 'email' }] }, otherKey)).status).toBe(200);
    const mine = await readJson<MaskingPolicyBody>(await svc.api('/api/v1/trace-masking'));
    expect(mine.policy.rules.map((r) => r.name)).toEqual(['ssn']);
    const forbidden = await svc.api('/api/v1/trace-masking?projectId=default', { key: otherKey });
    expect(forbidden.status).toBe(403);
  });
});
