import { describe, expect, it } from 'vitest';
import { inferProvider, normalizeProvider } from './model-provider.ts';

describe('inferProvider', () => {
  it.each([
    ['gpt-4o', 'openai'],
    ['gpt-4o-2024-08-06', 'openai'],
    ['o3-mini', 'openai'],
    ['o1', 'openai'],
    ['text-embedding-3-small', 'openai'],
    ['claude-3-5-sonnet-20241022', 'anthropic'],
    ['models/gemini-2.5-flash', 'google'],
    ['mistral-large-latest', 'mistral'],
    ['deepseek-chat', 'deepseek'],
    ['openai/gpt-4o', 'openai'],
    ['anthropic.claude-3-haiku-20240307-v1:0', 'anthropic'],
    ['GPT-4O', 'openai'],
  ])('%s → %s', (model, provider) => {
    expect(inferProvider(model)).toBe(provider);
  });

  it.each(['llama-3.1-70b', 'my-finetune', 'o10-experimental', ''])('leaves %j unknown', (model) => {
    expect(inferProvider(model)).toBe('');
  });
});

describe('normalizeProvider', () => {
  it.each([
    ['openai.chat', 'openai'],
    ['aws.bedrock', 'aws.bedrock'],
  ])('%s → %s', (raw, provider) => {
    expect(normalizeProvider(raw)).toBe(provider);
  });

  it.each(['strands-agents', 'gcp.vertex.agent'])('says no provider for the agent SDK %s', (raw) => {
    expect(normalizeProvider(raw)).toBeUndefined();
  });
});
