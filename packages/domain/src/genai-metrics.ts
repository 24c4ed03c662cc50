/**
 * The GenAI semantic conventions' metrics (gen_ai.client.token.usage,
 * gen_ai.client.operation.duration, gen_ai.server.time_to_first_token, …): which metrics
 * are stored, and the attributes they are keyed and filtered by.
 */
import type { AttributeValue } from '@aos/otlp';

/**
 * Metrics in the conventions' own namespace. A prefix rather than a list: the conventions
 * add metrics between releases (time_to_first_chunk, the agent and tool durations), and
 * every one of them carries the attributes below.
 */
export function isGenAiMetric(name: string): boolean {
  return name.startsWith('gen_ai.') && name.length <= 255;
}

/** The attributes a stored point is keyed by, as columns. */
export interface GenAiMetricAttributes {
  operationName: string;
  /** `gen_ai.provider.name`, else `gen_ai.system` (its name before semconv 1.37). */
  providerName: string;
  requestModel: string;
  responseModel: string;
  /** `input` or `output` on gen_ai.client.token.usage. */
  tokenType: string;
  serverAddress: string;
  errorType: string;
}

/** A point's GenAI attributes ("" when unset). */
export function genAiMetricAttributes(attributes: Readonly<Record<string, AttributeValue>>): GenAiMetricAttributes {
  const text = (key: string) => {
    const value = attributes[key];
    return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  };
  return {
    operationName: text('gen_ai.operation.name'),
    providerName: text('gen_ai.provider.name') || text('gen_ai.system'),
    requestModel: text('gen_ai.request.model'),
    responseModel: text('gen_ai.response.model'),
    tokenType: text('gen_ai.token.type'),
    serverAddress: text('server.address'),
    errorType: text('error.type'),
  };
}
