import { apiMessages, apiParts, restoreAttributes, type ApiChatMessage, type ApiMessagePart } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { nanosToIso } from '../sql/values.ts';
import { API_SPAN_SQL, apiSpanFromRow, type ApiSpan, type ApiSpanRow } from '../traces/api-span.ts';
import { IN_TRACE_HOURS_SQL } from '../traces/trace-hours.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

interface SpanDetailRow extends ApiSpanRow {
  trace_id: string;
  environment: string;
  platform: string;
  scope_name: string;
  scope_version: string;
  input: string;
  output: string;
  input_messages: string;
  output_messages: string;
  system_instructions: string;
  session_id: string;
  user_id: string;
  tool_arguments: string;
  tool_call_id: string;
  attributes: Record<string, string>;
  attribute_refs: Record<string, string>;
  resource_attributes: Record<string, string>;
  dimensions: Record<string, string>;
  events: string;
  links: string;
  parent_found: number;
}

export interface SpanEvent {
  name: string;
  time: string;
  attributes: Record<string, unknown>;
}

export interface SpanDetail extends ApiSpan {
  traceId: string;
  environment: string | null;
  platform: string | null;
  scope: { name: string; version: string };
  /** The text a person reads: the last user turn, a tool's arguments… */
  input: string;
  /** The text a person reads: the answer, or the tool calls it asked for. */
  output: string;
  /** The conversation the span sent, in the GenAI message shape with camelCase keys ([] when none). */
  inputMessages: ApiChatMessage[];
  outputMessages: ApiChatMessage[];
  /** System instructions given apart from the messages, as parts. */
  systemInstructions: ApiMessagePart[];
  sessionId: string | null;
  userId: string | null;
  toolArguments: string | null;
  toolCallId: string | null;
  attributes: Record<string, string>;
  resourceAttributes: Record<string, string>;
  /** Values of the project's dimension keys at ingest. */
  dimensions: Record<string, string>;
  events: SpanEvent[];
  links: unknown[];
}

/** The statement of getSpanDetail: the span's columns, and whether its parent is stored. */
export function spanDetailSql(projectId: string, traceId: string, spanId: string): Statement {
  const query = `
      SELECT ${API_SPAN_SQL},
        trace_id, environment, platform, scope_name, scope_version, input, output,
        input_messages, output_messages, system_instructions, session_id, user_id,
        tool_arguments, tool_call_id, attributes, attribute_refs, resource_attributes, dimensions, events, links,
        parent_span_id = '' OR parent_span_id IN (
          SELECT span_id FROM spans
          WHERE project_id = {projectId:String} AND ${IN_TRACE_HOURS_SQL} AND trace_id = {traceId:String}
        ) AS parent_found
      FROM spans FINAL
      WHERE project_id = {projectId:String} AND ${IN_TRACE_HOURS_SQL} AND trace_id = {traceId:String} AND span_id = {spanId:String}
      LIMIT 1`;
  return { query, params: { projectId, traceId, spanId } };
}

/** One span in full, or null. `parent_missing` is added when its parent is not stored. */
export async function getSpanDetail(
  storage: Storage,
  projectId: string,
  traceId: string,
  spanId: string,
): Promise<SpanDetail | null> {
  const statement = spanDetailSql(projectId, traceId, spanId);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'spans.detail'),
  });
  const [row] = await result.json<SpanDetailRow>();
  if (!row) return null;
  const span = apiSpanFromRow(row);
  if (!row.parent_found) span.qualityFlags = [...span.qualityFlags, 'parent_missing'];
  return {
    ...span,
    traceId: row.trace_id,
    environment: row.environment || null,
    platform: row.platform || null,
    scope: { name: row.scope_name, version: row.scope_version },
    input: row.input,
    output: row.output,
    inputMessages: apiMessages(row.input_messages),
    outputMessages: apiMessages(row.output_messages),
    systemInstructions: apiParts(row.system_instructions),
    sessionId: row.session_id || null,
    userId: row.user_id || null,
    toolArguments: row.tool_arguments || null,
    toolCallId: row.tool_call_id || null,
    attributes: restoreAttributes(row.attributes, row.attribute_refs, row),
    resourceAttributes: row.resource_attributes,
    dimensions: row.dimensions,
    events: parseEvents(row.events),
    links: parseJsonArray(row.links),
  };
}

function parseEvents(text: string): SpanEvent[] {
  return parseJsonArray(text).map((e) => {
    const event = e as { name?: string; timeUnixNano?: string; attributes?: Record<string, unknown> };
    return {
      name: event.name ?? '',
      time: event.timeUnixNano ? nanosToIso(event.timeUnixNano) : '',
      attributes: event.attributes ?? {},
    };
  });
}

function parseJsonArray(text: string): unknown[] {
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}
