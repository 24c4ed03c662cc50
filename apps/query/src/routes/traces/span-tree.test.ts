import { describe, expect, it } from 'vitest';
import type { ApiSpan } from '@aos/storage';
import { buildSpanTree, type SpanTreeNode } from './span-tree.ts';

function span(spanId: string, parentSpanId: string | null, qualityFlags: string[] = []): ApiSpan {
  return {
    spanId,
    parentSpanId,
    name: `op ${spanId}`,
    kind: 'internal',
    type: 'span',
    startTime: '2026-01-01T00:00:00.000000000Z',
    endTime: '2026-01-01T00:00:01.000000000Z',
    durationMs: 1000,
    status: 'ok',
    statusMessage: '',
    serviceName: 'svc',
    model: null,
    provider: null,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    cost: 0,
    costSource: null,
    toolName: null,
    agentName: null,
    timeToFirstTokenMs: null,
    qualityFlags,
    maskedRules: [],
  };
}

/** The tree as nested ids: `a(b,c(d))`. */
function shape(nodes: SpanTreeNode[]): string {
  return nodes.map((n) => (n.children.length ? `${n.spanId}(${shape(n.children)})` : n.spanId)).join(',');
}

function find(nodes: SpanTreeNode[], id: string): SpanTreeNode | undefined {
  for (const n of nodes) {
    if (n.spanId === id) return n;
    const hit = find(n.children, id);
    if (hit) return hit;
  }
  return undefined;
}

describe('buildSpanTree', () => {
  it('nests children under their parents, keeping the input (start) order', () => {
    const tree = buildSpanTree([span('a', null), span('c', 'a'), span('b', 'a'), span('d', 'c'), span('e', 'b')]);
    expect(shape(tree)).toBe('a(c(d),b(e))');
  });

  it('nests a child listed before its parent', () => {
    expect(shape(buildSpanTree([span('b', 'a'), span('a', null)]))).toBe('a(b)');
  });

  it('keeps several roots in order', () => {
    expect(shape(buildSpanTree([span('r2', null), span('x', 'r1'), span('r1', null)]))).toBe('r2,r1(x)');
  });

  it('makes a span whose parent is not in the trace a root flagged parent_missing', () => {
    const tree = buildSpanTree([span('a', null), span('o', 'gone', ['future_timestamp']), span('c', 'o')]);
    expect(shape(tree)).toBe('a,o(c)');
    expect(find(tree, 'o')?.qualityFlags).toEqual(['future_timestamp', 'parent_missing']);
    expect(find(tree, 'a')?.qualityFlags).toEqual([]);
    expect(find(tree, 'c')?.qualityFlags).toEqual([]);
  });

  it('does not change the input spans', () => {
    const input = [span('o', 'gone')];
    buildSpanTree(input);
    expect(input[0]?.qualityFlags).toEqual([]);
  });

  it('makes a self-parented span a root instead of looping', () => {
    const tree = buildSpanTree([span('s', 's'), span('c', 's')]);
    expect(shape(tree)).toBe('s(c)');
    expect(tree[0]?.qualityFlags).toEqual(['parent_missing']);
  });

  it('keeps spans caught in a parent cycle, cut at the earliest one', () => {
    const tree = buildSpanTree([span('r', null), span('a', 'b'), span('b', 'a'), span('c', 'a')]);
    expect(shape(tree)).toBe('r,a(b,c)');
    expect(find(tree, 'a')?.qualityFlags).toEqual(['parent_missing']);
    expect(find(tree, 'b')?.qualityFlags).toEqual([]);
  });

  it('cuts a cycle on the span where it closes when the first unplaced span hangs below it', () => {
    const tree = buildSpanTree([span('r', null), span('c', 'a'), span('a', 'b'), span('b', 'a')]);
    expect(shape(tree)).toBe('r,a(c,b)');
  });

  it('returns an empty list for no spans', () => {
    expect(buildSpanTree([])).toEqual([]);
  });
});
