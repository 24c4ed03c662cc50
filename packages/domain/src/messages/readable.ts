/**
 * The text a person reads for a span's input and output, taken from its messages. This text
 * is what lists preview, search matches, evaluators read, masking sees and exports write.
 *
 *   input:  the last user turn's text; else the last tool result (a model call that
 *           continues after tools); else the last text of any other message;
 *   output: the assistant's text (its last message that has some); else its tool calls,
 *           one per line, as `get_weather({"city":"Paris"})`; else its reasoning.
 * Media show as a placeholder (`[image image/png]`), never as bytes.
 */
import type { ChatMessage, MessagePart, ToolCallPart } from './model.ts';

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : JSON.stringify(value);
}

/** `name(arguments)`, arguments as compact JSON. */
export function renderToolCall(part: ToolCallPart): string {
  return `${part.name}(${part.arguments === undefined || part.arguments === null ? '' : jsonText(part.arguments)})`;
}

function mediaPlaceholder(part: MessagePart): string | undefined {
  if (part.type === 'uri') return `[${part.modality ?? 'media'} ${part.uri}]`;
  if (part.type === 'file') return `[${part.modality ?? 'file'} ${part.file_id}]`;
  if (part.type === 'blob') return `[${part.modality ?? 'media'}${part.mime_type ? ` ${part.mime_type}` : ''}]`;
  return undefined;
}

/** The message's text parts joined; media placeholders only when it has no text. */
export function messageText(m: ChatMessage): string {
  const texts: string[] = [];
  const media: string[] = [];
  for (const part of m.parts) {
    if (part.type === 'text') {
      if (part.content !== '') texts.push(part.content);
    } else {
      const placeholder = mediaPlaceholder(part);
      if (placeholder !== undefined) media.push(placeholder);
    }
  }
  return (texts.length > 0 ? texts : media).join('\n');
}

function lastText(messages: readonly ChatMessage[], accept: (m: ChatMessage) => boolean): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (!accept(m)) continue;
    const text = messageText(m);
    if (text !== '') return text;
  }
  return undefined;
}

function lastToolResult(messages: readonly ChatMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const parts = messages[i]!.parts;
    for (let j = parts.length - 1; j >= 0; j--) {
      const part = parts[j]!;
      if (part.type === 'tool_call_response') {
        const text = jsonText(part.response);
        if (text !== '' && text !== 'null') return text;
      }
    }
  }
  return undefined;
}

/** What the span was asked, as a person reads it ('' when the messages hold no text). */
export function readableInput(messages: readonly ChatMessage[]): string {
  return (
    lastText(messages, (m) => m.role === 'user') ??
    lastToolResult(messages) ??
    lastText(messages, (m) => m.role !== 'system') ??
    lastText(messages, () => true) ??
    ''
  );
}

/** What the model answered, as a person reads it ('' when it answered nothing readable). */
export function readableOutput(messages: readonly ChatMessage[]): string {
  const text = lastText(messages, (m) => m.role === 'assistant');
  if (text !== undefined) return text;
  for (let i = messages.length - 1; i >= 0; i--) {
    const calls = messages[i]!.parts.filter((p): p is ToolCallPart => p.type === 'tool_call');
    if (calls.length > 0) return calls.map(renderToolCall).join('\n');
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const reasoning = messages[i]!.parts.filter((p) => p.type === 'reasoning').map((p) => (p as { content: string }).content);
    if (reasoning.length > 0) return reasoning.join('\n');
  }
  return lastText(messages, () => true) ?? lastToolResult(messages) ?? '';
}
