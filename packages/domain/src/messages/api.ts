/**
 * Messages as the API returns them: the stored GenAI shape with the API's camelCase keys
 * (`finish_reason` → `finishReason`, `mime_type` → `mimeType`, `file_id` → `fileId`).
 * Only the model's own keys are renamed: tool arguments and results stay as the agent sent them.
 */
import type { ChatMessage, JsonValue, MessagePart, MessageRole } from './model.ts';

export type ApiMessagePart =
  | { type: 'text' | 'reasoning'; content: string }
  | { type: 'tool_call'; id?: string; name: string; arguments?: JsonValue }
  | { type: 'tool_call_response'; id?: string; response: JsonValue }
  | { type: 'uri'; modality?: string; mimeType?: string; uri: string }
  | { type: 'file'; modality?: string; mimeType?: string; fileId: string }
  | { type: 'blob'; modality?: string; mimeType?: string; size: number };

export interface ApiChatMessage {
  role: MessageRole;
  parts: ApiMessagePart[];
  name?: string;
  finishReason?: string;
}

function apiPart(part: MessagePart): ApiMessagePart {
  if (part.type !== 'uri' && part.type !== 'file' && part.type !== 'blob') return part;
  const { mime_type, file_id, ...rest } = part as MessagePart & { mime_type?: string; file_id?: string };
  return {
    ...rest,
    ...(mime_type !== undefined ? { mimeType: mime_type } : {}),
    ...(file_id !== undefined ? { fileId: file_id } : {}),
  } as ApiMessagePart;
}

function parseList(text: string): unknown[] {
  if (text === '') return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return []; // not written by this service's writer
  }
}

/** Stored `input_messages` / `output_messages` text → API messages. */
export function apiMessages(stored: string): ApiChatMessage[] {
  return (parseList(stored) as ChatMessage[]).map((m) => {
    const out: ApiChatMessage = { role: m.role, parts: (m.parts ?? []).map(apiPart) };
    if (m.name !== undefined) out.name = m.name;
    if (m.finish_reason !== undefined) out.finishReason = m.finish_reason;
    return out;
  });
}

/** Stored `system_instructions` text → API parts. */
export function apiParts(stored: string): ApiMessagePart[] {
  return (parseList(stored) as MessagePart[]).map(apiPart);
}
