/**
 * The message model every convention reader fills: the conversation a span sent to a model
 * and what came back, in the OpenTelemetry GenAI "parts" shape (semantic-conventions-genai,
 * `gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions` JSON
 * schemas), which is also the stored form:
 *
 *   {"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}
 *   {"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}],
 *    "finish_reason":"tool_call"}
 *   {"role":"tool","parts":[{"type":"tool_call_response","id":"call_1","response":"rainy, 14°C"}]}
 *
 * Differences from the schema, on purpose: roles are always one of the four below (the
 * readers map `developer`, `model`, `human`… onto them); a `blob` part never carries its
 * bytes (`content`), only its MIME type, modality and size; part types outside the list
 * below are dropped (they stay in the span's raw attributes).
 */

export const MESSAGE_ROLES = ['system', 'user', 'assistant', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** Any JSON value: tool arguments and tool results are kept as sent (object, or text). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface TextPart {
  type: 'text';
  content: string;
}
export interface ReasoningPart {
  type: 'reasoning';
  content: string;
}
export interface ToolCallPart {
  type: 'tool_call';
  id?: string;
  name: string;
  arguments?: JsonValue;
}
export interface ToolCallResponsePart {
  type: 'tool_call_response';
  id?: string;
  response: JsonValue;
}
/** Media referenced by URI (never a data URL: those become blobs). */
export interface UriPart {
  type: 'uri';
  modality?: string;
  mime_type?: string;
  uri: string;
}
/** Media referenced by a provider file id. */
export interface FilePart {
  type: 'file';
  modality?: string;
  mime_type?: string;
  file_id: string;
}
/** Media sent inline: only what it was, never the bytes. */
export interface BlobPart {
  type: 'blob';
  modality?: string;
  mime_type?: string;
  /** Bytes of the blob as sent (decoded from base64), 0 when unknown. */
  size: number;
}
export type MessagePart = TextPart | ReasoningPart | ToolCallPart | ToolCallResponsePart | UriPart | FilePart | BlobPart;
export type MediaPart = UriPart | FilePart | BlobPart;

export interface ChatMessage {
  role: MessageRole;
  parts: MessagePart[];
  /** The participant's name, when the conversation names it. */
  name?: string;
  /** Output messages: why generation stopped (`stop`, `length`, `tool_call`, …). */
  finish_reason?: string;
}

/** What one span says about its conversation; every field optional. */
export interface Conversation {
  system?: MessagePart[];
  messages: ChatMessage[];
}

const ROLE_ALIASES: Readonly<Record<string, MessageRole>> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  model: 'assistant',
  ai: 'assistant',
  bot: 'assistant',
  chatbot: 'assistant',
  tool: 'tool',
  function: 'tool',
  ipython: 'tool',
};

/** A role as the four of the model; an unknown role is a user's (someone outside the model spoke). */
export function normalizeRole(role: unknown, fallback: MessageRole = 'user'): MessageRole {
  if (typeof role !== 'string') return fallback;
  return ROLE_ALIASES[role.toLowerCase()] ?? fallback;
}

export function textPart(content: string): TextPart {
  return { type: 'text', content };
}

/** The trailing assistant messages (the answer) apart from what led to them. */
export function splitAtAnswer(messages: ChatMessage[]): { input: ChatMessage[]; output: ChatMessage[] } {
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.role === 'assistant') start--;
  return { input: messages.slice(0, start), output: messages.slice(start) };
}

export function message(role: MessageRole, parts: MessagePart[]): ChatMessage {
  return { role, parts };
}

/** A tool call part; JSON text arguments are parsed so `{"city":"Paris"}` is stored as an object. */
export function toolCallPart(name: string, id: string | undefined, args: unknown): ToolCallPart {
  const part: ToolCallPart = { type: 'tool_call', name };
  if (id !== undefined && id !== '') part.id = id;
  const value = jsonArguments(args);
  if (value !== undefined) part.arguments = value;
  return part;
}

export function toolCallResponsePart(id: string | undefined, response: unknown): ToolCallResponsePart {
  const value = toJsonValue(response);
  return id !== undefined && id !== '' ? { type: 'tool_call_response', id, response: value } : { type: 'tool_call_response', response: value };
}

function jsonArguments(args: unknown): JsonValue | undefined {
  if (args === undefined || args === null || args === '') return undefined;
  if (typeof args === 'string') {
    const trimmed = args.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return JSON.parse(args) as JsonValue;
      } catch {
        return args; // arguments a model streamed half of: keep the text
      }
    }
    return args;
  }
  return toJsonValue(args);
}

/** Values read from parsed JSON or OTLP attributes are JSON already; undefined becomes null. */
export function toJsonValue(value: unknown): JsonValue {
  return value === undefined ? null : (value as JsonValue);
}

const MODALITIES: Readonly<Record<string, string>> = { image: 'image', audio: 'audio', video: 'video' };

/** The GenAI modality of a MIME type (`image/png` → `image`); documents for the rest. */
export function modalityOf(mimeType: string | undefined): string | undefined {
  if (mimeType === undefined) return undefined;
  const top = mimeType.slice(0, mimeType.indexOf('/'));
  return MODALITIES[top] ?? (top === '' ? undefined : 'document');
}

/** Bytes encoded by a base64 text (padding and whitespace aside). */
export function base64Size(data: string): number {
  let length = data.length;
  while (length > 0 && data.charCodeAt(length - 1) === 61 /* = */) length--;
  return Math.floor((length * 3) / 4);
}

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,/;
const URI_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A media part from whatever a library sent: a data URL or bare base64 becomes a blob
 * placeholder (MIME type and size only), a URL a `uri` reference.
 */
export function mediaPart(source: unknown, mimeType?: string, modality?: string): MediaPart {
  if (typeof source === 'string') {
    const dataUrl = DATA_URL.exec(source);
    if (dataUrl) {
      const mime = mimeType ?? (dataUrl[1] || undefined);
      const isBase64 = dataUrl[2]?.includes(';base64') ?? false;
      const payload = source.length - dataUrl[0].length;
      return blob(mime, modality, isBase64 ? base64Size(source.slice(dataUrl[0].length)) : payload);
    }
    if (URI_SCHEME.test(source)) return withMedia({ type: 'uri', uri: source }, mimeType, modality);
    return blob(mimeType, modality, base64Size(source));
  }
  // A byte array serialized by JSON.stringify: an array, or an object keyed by index.
  if (Array.isArray(source)) return blob(mimeType, modality, source.length);
  if (source !== null && typeof source === 'object') return blob(mimeType, modality, Object.keys(source).length);
  return blob(mimeType, modality, 0);
}

function blob(mimeType: string | undefined, modality: string | undefined, size: number): BlobPart {
  return withMedia({ type: 'blob', size }, mimeType, modality);
}

/** Sets modality and MIME type in the schema's key order (type, modality, mime_type, …). */
export function withMedia<P extends MediaPart>(part: P, mimeType: string | undefined, modality: string | undefined): P {
  const mod = modality ?? modalityOf(mimeType);
  const { type, ...rest } = part;
  const out = { type } as P;
  if (mod !== undefined) out.modality = mod;
  if (mimeType !== undefined && mimeType !== '') out.mime_type = mimeType;
  return Object.assign(out, rest);
}
