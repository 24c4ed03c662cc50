/**
 * Whether parsed JSON already is in the stored shape (model.ts), checked without building
 * anything. Instrumentations that follow the GenAI conventions send exactly this shape;
 * taking it as it is spares reading it into new objects and comparing them with the source.
 */
import { MESSAGE_ROLES, type ChatMessage, type MessagePart } from './model.ts';

type Obj = Record<string, unknown>;

const ROLES: ReadonlySet<unknown> = new Set(MESSAGE_ROLES);
const MESSAGE_KEYS: ReadonlySet<string> = new Set(['role', 'parts', 'name', 'finish_reason']);
const MEDIA_KEYS: ReadonlySet<string> = new Set(['type', 'modality', 'mime_type', 'uri', 'file_id', 'size']);

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function optionalText(v: unknown): boolean {
  return v === undefined || (typeof v === 'string' && v !== '');
}

function keysWithin(o: Obj, allowed: ReadonlySet<string>): boolean {
  for (const key in o) if (!allowed.has(key)) return false;
  return true;
}

function countKeys(o: Obj): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** A tool call's arguments as the model keeps them: JSON text is parsed, so text holding JSON is not canonical. */
function canonicalArguments(v: unknown): boolean {
  if (typeof v !== 'string') return v !== null;
  const first = v.trimStart()[0];
  return v !== '' && first !== '{' && first !== '[';
}

function canonicalPart(p: unknown): boolean {
  if (!isObj(p)) return false;
  switch (p['type']) {
    case 'text':
    case 'reasoning':
      return typeof p['content'] === 'string' && countKeys(p) === 2;
    case 'tool_call':
      return (
        typeof p['name'] === 'string' &&
        optionalText(p['id']) &&
        (p['arguments'] === undefined || canonicalArguments(p['arguments'])) &&
        countKeys(p) === 2 + (p['id'] === undefined ? 0 : 1) + (p['arguments'] === undefined ? 0 : 1)
      );
    case 'tool_call_response':
      return 'response' in p && p['response'] !== undefined && optionalText(p['id']) && countKeys(p) === 2 + (p['id'] === undefined ? 0 : 1);
    case 'uri':
    case 'file':
    case 'blob': {
      const ref = p['type'] === 'uri' ? p['uri'] : p['type'] === 'file' ? p['file_id'] : p['size'];
      return (
        (p['type'] === 'blob' ? typeof ref === 'number' : typeof ref === 'string') &&
        optionalText(p['modality']) &&
        optionalText(p['mime_type']) &&
        // readers derive the modality from the MIME type
        (p['mime_type'] === undefined || p['modality'] !== undefined) &&
        keysWithin(p, MEDIA_KEYS) &&
        countKeys(p) === 2 + (p['modality'] === undefined ? 0 : 1) + (p['mime_type'] === undefined ? 0 : 1)
      );
    }
    default:
      return false;
  }
}

function canonicalMessage(m: unknown): boolean {
  if (!isObj(m) || !ROLES.has(m['role']) || !Array.isArray(m['parts']) || !keysWithin(m, MESSAGE_KEYS)) return false;
  if (!optionalText(m['name']) || (m['finish_reason'] !== undefined && typeof m['finish_reason'] !== 'string')) return false;
  // Readers turn a user's message of tool results only into the tool's; a tool message always answers.
  const parts = m['parts'] as unknown[];
  for (const part of parts) if (!canonicalPart(part)) return false;
  if (m['role'] === 'tool') return m['name'] === undefined && parts.some((p) => (p as Obj)['type'] === 'tool_call_response');
  return !(m['role'] === 'user' && parts.length > 0 && parts.every((p) => (p as Obj)['type'] === 'tool_call_response'));
}

/** The value itself when it is a non-empty message list in the stored shape. */
export function canonicalMessages(value: unknown): ChatMessage[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  for (const m of value) if (!canonicalMessage(m)) return undefined;
  return value as ChatMessage[];
}

/** The value itself when it is a non-empty parts list in the stored shape (system instructions). */
export function canonicalParts(value: unknown): MessagePart[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  for (const p of value) if (!canonicalPart(p)) return undefined;
  return value as MessagePart[];
}
