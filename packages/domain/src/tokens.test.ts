import { describe, expect, it } from 'vitest';
import { reconcileTokens } from './tokens.ts';

const none = {
  inputTokens: undefined,
  outputTokens: undefined,
  totalTokens: undefined,
  cacheReadTokens: undefined,
  cacheWriteTokens: undefined,
  reasoningTokens: undefined,
};

describe('reconcileTokens', () => {
  it('keeps counts that already include their sub-counts', () => {
    const t = reconcileTokens({ ...none, inputTokens: 1200, outputTokens: 300, cacheReadTokens: 1000, reasoningTokens: 200 });
    expect(t).toMatchObject({ input: 1200, output: 300, total: 1500, cachedInput: 1000, reasoning: 200, inconsistent: false });
  });

  it('adds cache to an input that cannot include it (cached > input), moving a matching total along', () => {
    // Anthropic-style usage: input_tokens excludes cache reads and writes.
    const t = reconcileTokens({
      ...none,
      inputTokens: 10,
      cacheReadTokens: 1000,
      cacheWriteTokens: 90,
      outputTokens: 50,
      totalTokens: 60,
    });
    expect(t).toMatchObject({ input: 10 + 1000 + 90, output: 50, total: 1150, inconsistent: false });
  });

  it('adds reasoning to an output that cannot include it', () => {
    const t = reconcileTokens({ ...none, inputTokens: 100, outputTokens: 40, reasoningTokens: 500 });
    expect(t).toMatchObject({ input: 100, output: 540, total: 640, reasoning: 500 });
  });

  it('uses an explicit total to tell that input excluded the cache', () => {
    const t = reconcileTokens({ ...none, inputTokens: 500, cacheReadTokens: 300, outputTokens: 100, totalTokens: 900 });
    expect(t).toMatchObject({ input: 800, output: 100, total: 900, inconsistent: false });
  });

  it('flags a total that no reading explains, keeping the reported total', () => {
    const t = reconcileTokens({ ...none, inputTokens: 500, outputTokens: 100, totalTokens: 400 });
    expect(t).toMatchObject({ input: 500, output: 100, total: 400, inconsistent: true });
  });

  it('flags negative counts and treats them as zero', () => {
    const t = reconcileTokens({ ...none, inputTokens: -5, outputTokens: 10 });
    expect(t).toMatchObject({ input: 0, output: 10, inconsistent: true });
  });

  it('derives a missing input from the total', () => {
    expect(reconcileTokens({ ...none, outputTokens: 30, totalTokens: 100 })).toMatchObject({ input: 70, output: 30, total: 100 });
  });

  it('reports whether any count was present', () => {
    expect(reconcileTokens(none).known).toBe(false);
    expect(reconcileTokens({ ...none, totalTokens: 0 }).known).toBe(true);
  });
});
