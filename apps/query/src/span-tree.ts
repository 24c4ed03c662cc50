import type { SpanSummary } from '@aos/storage';

export interface SpanTreeNode extends SpanSummary {
  children: SpanTreeNode[];
}

/**
 * Nests spans under their parents, children in start order. A span whose parent is not
 * in the trace becomes a root and gets the `parent_missing` quality flag, so a trace with
 * lost spans is still shown whole.
 */
export function buildSpanTree(spans: readonly SpanSummary[]): SpanTreeNode[] {
  const nodes = new Map<string, SpanTreeNode>();
  for (const span of spans) nodes.set(span.spanId, { ...span, children: [] });
  const roots: SpanTreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentSpanId ? nodes.get(node.parentSpanId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else {
      if (node.parentSpanId) node.qualityFlags = [...node.qualityFlags, 'parent_missing'];
      roots.push(node);
    }
  }
  // Input is in start order and insertion keeps it, so children are already sorted.
  return roots;
}
