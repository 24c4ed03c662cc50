import { describe, expect, it } from 'vitest';
import { SNAPSHOT_SUFFIX_RUN, distinctModels, isLessSpecificModelName, stripSnapshotSuffix } from './model-name.ts';

describe('distinctModels', () => {
  it('lists a model once, by its most specific name', () => {
    expect(distinctModels(['gpt-4o', 'gpt-4o-2024-08-06'])).toEqual(['gpt-4o-2024-08-06']);
    expect(distinctModels(['claude-3-5-sonnet', 'claude-3-5-sonnet-20241022', 'claude-3-5-sonnet-20241022-v2:0'])).toEqual([
      'claude-3-5-sonnet-20241022-v2:0',
    ]);
    expect(distinctModels(['gpt-4', 'gpt-4-0613', 'gemini-2.0-flash', 'gemini-2.0-flash-001'])).toEqual(['gpt-4-0613', 'gemini-2.0-flash-001']);
    expect(distinctModels(['claude-sonnet-4', 'claude-sonnet-4@20250514'])).toEqual(['claude-sonnet-4@20250514']);
  });

  it('compares names ignoring ASCII case', () => {
    expect(distinctModels(['GPT-4o', 'gpt-4o-2024-08-06'])).toEqual(['gpt-4o-2024-08-06']);
  });

  it('keeps other models, other snapshots and other deployments apart', () => {
    expect(distinctModels(['gpt-4o', 'gpt-4o-mini'])).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(distinctModels(['gpt-4o-2024-05-13', 'gpt-4o-2024-08-06'])).toEqual(['gpt-4o-2024-05-13', 'gpt-4o-2024-08-06']);
    expect(distinctModels(['azure/gpt-4o', 'openai/gpt-4o-2024-08-06'])).toEqual(['azure/gpt-4o', 'openai/gpt-4o-2024-08-06']);
    expect(distinctModels(['openai/gpt-4o', 'openai/gpt-4o-2024-08-06'])).toEqual(['openai/gpt-4o-2024-08-06']);
    expect(distinctModels(['llama-3', 'llama-3-70b'])).toEqual(['llama-3', 'llama-3-70b']);
    expect(distinctModels([])).toEqual([]);
  });

  it('agrees with the suffixes stripSnapshotSuffix strips', () => {
    for (const name of ['gpt-4o-2024-08-06', 'claude-3-5-sonnet-20241022-v2:0', 'gemini-2.5-pro-preview-05-06', 'mistral-large-2411']) {
      expect(isLessSpecificModelName(stripSnapshotSuffix(name), name), name).toBe(true);
    }
    expect(isLessSpecificModelName('gpt-4o', 'gpt-4o')).toBe(false);
    expect(new RegExp(SNAPSHOT_SUFFIX_RUN).test('-2024-08-06-latest')).toBe(true);
    expect(new RegExp(SNAPSHOT_SUFFIX_RUN).test('-mini')).toBe(false);
  });
});
