import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCallError, chatCompletion, type ModelCallSettings } from './model-client.ts';

/** A local chat-completions endpoint answering from a script, one entry per request. */
let script: Array<{ status: number; body: string; headers?: Record<string, string> }> = [];
let seen = 0;
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen += 1;
      const next = script.shift() ?? { status: 500, body: 'script ran out' };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const settings = (over: Partial<ModelCallSettings> = {}): ModelCallSettings => ({
  baseUrl,
  model: 'm',
  apiKey: null,
  temperature: 0,
  maxTokens: 64,
  publicOnly: false,
  timeoutMs: 2000,
  maxAttempts: 3,
  backoffMs: 1,
  maxBackoffMs: 50,
  ...over,
});
const ok = (content: string) => ({ status: 200, body: JSON.stringify({ choices: [{ message: { content } }], usage: { prompt_tokens: 7, completion_tokens: 3 } }) });
const messages = [{ role: 'user' as const, content: 'hi' }];

describe('chatCompletion', () => {
  it('retries 5xx and 429 (Retry-After capped by maxBackoffMs) and returns the content with usage', async () => {
    script = [{ status: 503, body: '{}' }, { status: 429, body: '{}', headers: { 'retry-after': '3600' } }, ok('fine')];
    seen = 0;
    const started = Date.now();
    const reply = await chatCompletion(settings(), messages);
    expect(reply).toEqual({ content: 'fine', usage: { promptTokens: 7, completionTokens: 3 }, attempts: 3 });
    expect(seen).toBe(3);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('does not retry other 4xx or an answer without content', async () => {
    for (const answer of [{ status: 400, body: '{"error":"bad model"}' }, { status: 200, body: 'not json' }, { status: 200, body: '{"choices":[]}' }]) {
      script = [answer, ok('never reached')];
      seen = 0;
      await expect(chatCompletion(settings(), messages)).rejects.toBeInstanceOf(ModelCallError);
      expect(seen).toBe(1);
    }
    script = [];
  });

  it('gives up after maxAttempts and says why', async () => {
    script = [{ status: 502, body: '{}' }, { status: 502, body: '{}' }];
    await expect(chatCompletion(settings({ maxAttempts: 2 }), messages)).rejects.toThrow('the model endpoint answered 502 (after 2 attempts)');
  });

  it('refuses a private endpoint when only public ones are allowed, without calling it', async () => {
    const before = seen;
    await expect(chatCompletion(settings({ publicOnly: true, maxAttempts: 3 }), messages)).rejects.toThrow(
      /not allowed: 127\.0\.0\.1 is a private address .*\(after 1 attempt\)/,
    );
    expect(seen).toBe(before);
  });
});
