import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { readJson, type ErrorBody } from '../support/api-types.ts';

// The default: URLs given through the API may not point at private addresses.
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

const post = (path: string, body: unknown) =>
  svc.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('URLs the service calls', () => {
  it('refuses a monitor webhook on a private address, naming the field', async () => {
    const res = await post('/api/v1/trace-monitors', {
      name: 'errors',
      measure: 'error_count',
      windowSeconds: 600,
      intervalSeconds: 60,
      condition: { operator: 'above', threshold: 3 },
      webhookUrl: 'http://169.254.169.254/latest/meta-data',
      webhookSecret: 'a-secret-of-sixteen+',
    });
    expect(res.status).toBe(400);
    const error = (await readJson<ErrorBody>(res)).error;
    expect(error.details[0]).toMatchObject({ field: 'webhookUrl', message: expect.stringMatching(/private address \(169\.254\.169\.254\)/) });
  });

  it('refuses an evaluator model endpoint on the service host, naming the field', async () => {
    const res = await post('/api/v1/trace-evaluators', {
      name: 'judge',
      template: 'helpfulness',
      model: { baseUrl: 'http://localhost:8123/?query=SELECT%201', model: 'x' },
    });
    expect(res.status).toBe(400);
    const error = (await readJson<ErrorBody>(res)).error;
    expect(error.details[0]).toMatchObject({ field: 'model.baseUrl', message: expect.stringMatching(/private address/) });
  });
});
