import { describe, expect, it } from 'vitest';
import { genAiMetricAttributes, isGenAiMetric } from './genai-metrics.ts';

describe('GenAI metrics', () => {
  it("keeps the conventions' namespace only", () => {
    expect(isGenAiMetric('gen_ai.client.token.usage')).toBe(true);
    expect(isGenAiMetric('gen_ai.client.operation.time_to_first_chunk')).toBe(true);
    expect(isGenAiMetric('http.server.request.duration')).toBe(false);
    expect(isGenAiMetric('gen_ai_client_token_usage')).toBe(false);
  });

  it('reads the key attributes, the provider from gen_ai.system before 1.37', () => {
    expect(
      genAiMetricAttributes({
        'gen_ai.operation.name': 'chat',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.token.type': 'input',
        'server.address': 'api.openai.com',
        'error.type': 'timeout',
      }),
    ).toEqual({ operationName: 'chat', providerName: 'openai', requestModel: 'gpt-4o', responseModel: '', tokenType: 'input', serverAddress: 'api.openai.com', errorType: 'timeout' });
    expect(genAiMetricAttributes({ 'gen_ai.provider.name': 'anthropic', 'gen_ai.system': 'openai' }).providerName).toBe('anthropic');
  });
});
