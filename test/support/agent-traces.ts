/**
 * OTLP/JSON for small agent traces: a root agent span with an input and output, and
 * optional children (tool calls, model calls), one millisecond apart.
 */
export interface ChildSpan {
  name: string;
  attrs?: Record<string, string | number>;
  error?: boolean;
  durationMs?: number;
}

export interface AgentTrace {
  traceId: string;
  startNs: number;
  input: string;
  output: string;
  rootAttrs?: Record<string, string | number>;
  resource?: Record<string, string>;
  children?: ChildSpan[];
  rootDurationMs?: number;
}

const value = (v: string | number) => (typeof v === 'number' ? { intValue: String(v) } : { stringValue: v });
const attributes = (attrs: Record<string, string | number>) => Object.entries(attrs).map(([key, v]) => ({ key, value: value(v) }));

export function agentTraces(traces: AgentTrace[]) {
  return {
    resourceSpans: traces.map((t) => ({
      resource: { attributes: attributes({ 'service.name': 'eval-test', ...t.resource }) },
      scopeSpans: [
        {
          spans: [
            {
              traceId: t.traceId,
              spanId: '0000000000000001',
              parentSpanId: '',
              name: 'agent run',
              startTimeUnixNano: String(t.startNs),
              endTimeUnixNano: String(t.startNs + (t.rootDurationMs ?? 100) * 1e6),
              status: { code: 1 },
              attributes: attributes({ 'input.value': t.input, 'output.value': t.output, 'openinference.span.kind': 'AGENT', ...t.rootAttrs }),
            },
            ...(t.children ?? []).map((c, i) => ({
              traceId: t.traceId,
              spanId: (i + 2).toString(16).padStart(16, '0'),
              parentSpanId: '0000000000000001',
              name: c.name,
              startTimeUnixNano: String(t.startNs + (i + 1) * 1e6),
              endTimeUnixNano: String(t.startNs + (i + 1) * 1e6 + (c.durationMs ?? 0.5) * 1e6),
              status: { code: c.error ? 2 : 1 },
              attributes: attributes(c.attrs ?? {}),
            })),
          ],
        },
      ],
    })),
  };
}

export const traceHex = (n: number) => n.toString(16).padStart(32, '0');
