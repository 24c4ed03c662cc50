import { describe, expect, it } from 'vitest';
import { findModelPrice, loadPriceTable } from './prices.ts';
import { SHIPPED_MODEL_PRICES } from './model-prices.ts';

const table = loadPriceTable();

describe('findModelPrice', () => {
  it.each([
    ['gpt-4o', 'gpt-4o'],
    ['GPT-4o', 'gpt-4o'],
    ['openai/gpt-4o', 'gpt-4o'],
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-2024-05-13', 'gpt-4o-2024-05-13'], // a snapshot priced differently is listed itself
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['gpt-4-0613', 'gpt-4'],
    ['o3-mini-high', 'o3-mini'],
    ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet'],
    ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet'],
    ['anthropic/claude-3.5-sonnet', 'claude-3-5-sonnet'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['us.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-3-7-sonnet'],
    ['claude-sonnet-4@20250514', 'claude-sonnet-4'],
    ['models/gemini-1.5-pro-002', 'gemini-1.5-pro'],
    ['gemini-2.5-flash-lite-preview-06-17', 'gemini-2.5-flash-lite'],
    ['mistral-large-latest', 'mistral-large'],
    ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'llama-3.3-70b-instruct-turbo'],
  ])('matches %s to %s', (model, key) => {
    const match = findModelPrice(table, model, '');
    expect(match?.key).toBe(key);
    expect(match?.price).toEqual(SHIPPED_MODEL_PRICES[key]);
  });

  it.each(['my-finetune', 'gpt-4oz', 'ft:gpt-4o-mini-2024-07-18:acme::abc123', ''])('finds no price for %j', (model) => {
    expect(findModelPrice(table, model, '')).toBeNull();
  });

  it('caches results per raw model name', () => {
    const first = findModelPrice(table, 'gpt-4.1-mini-2025-04-14', 'openai');
    expect(first?.key).toBe('gpt-4.1-mini');
    expect(findModelPrice(table, 'gpt-4.1-mini-2025-04-14', 'openai')).toBe(first);
  });

  it('keeps providers apart in the cache, and answers the same once more names came than it caches', () => {
    const scoped = loadPriceTable({ 'acme/foo-1': { input: 1, output: 2 }, 'foo-1': { input: 3, output: 4 } });
    expect(findModelPrice(scoped, 'foo-1', 'acme')?.price.input).toBe(1);
    expect(findModelPrice(scoped, 'foo-1', '')?.price.input).toBe(3);
    expect(findModelPrice(scoped, 'foo-1', 'acme')?.price.input).toBe(1);
    for (let i = 0; i < 10_050; i++) expect(findModelPrice(table, `no-such-model-${i}`, `provider-${i % 3}`)).toBeNull();
    expect(findModelPrice(table, 'gpt-4.1-mini-2025-04-14', 'openai')?.key).toBe('gpt-4.1-mini');
    expect(findModelPrice(table, 'no-such-model-7', 'provider-1')).toBeNull();
  });
});

describe('loadPriceTable overrides', () => {
  it('adds models and replaces shipped prices, case-insensitively', () => {
    const custom = loadPriceTable({
      'Acme-LLM-1': { input: 1, output: 2 },
      'gpt-4o': { input: 2, output: 8, cachedInput: 1 },
    });
    expect(findModelPrice(custom, 'acme-llm-1-2025-01-01')?.price).toEqual({ input: 1, output: 2 });
    expect(findModelPrice(custom, 'gpt-4o')?.price).toEqual({ input: 2, output: 8, cachedInput: 1 });
    // the shipped table itself is untouched
    expect(findModelPrice(table, 'gpt-4o')?.price.input).toBe(SHIPPED_MODEL_PRICES['gpt-4o']?.input);
  });

  it('prefers a provider-scoped price when the provider matches', () => {
    const custom = loadPriceTable({ 'azure/gpt-4o': { input: 2.75, output: 11 } });
    expect(findModelPrice(custom, 'gpt-4o-2024-08-06', 'azure')?.key).toBe('azure/gpt-4o');
    expect(findModelPrice(custom, 'gpt-4o-2024-08-06', 'openai')?.key).toBe('gpt-4o');
  });

  it.each([
    [{ 'gpt-4o': { input: -1, output: 10 } }, /model "gpt-4o", field "input"/],
    [{ 'acme-1': { input: 1 } }, /model "acme-1", field "output"/],
    [{ 'acme-1': { input: 1, output: 2, cached_input: 0.5 } }, /model "acme-1", field "cached_input"/],
    [{ 'acme-1': { input: '1', output: 2 } }, /model "acme-1", field "input"/],
    [{ 'acme-1': 3 }, /model "acme-1"/],
    [['gpt-4o'], /price overrides/],
  ])('rejects %j with an error naming the entry', (overrides, message) => {
    expect(() => loadPriceTable(overrides)).toThrow(message);
  });
});
