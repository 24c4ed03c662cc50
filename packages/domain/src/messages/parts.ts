/**
 * Message content as the libraries shape it, read into parts of the model: GenAI parts,
 * OpenAI chat and Responses content, Anthropic blocks, Vercel AI SDK prompt parts, Gemini
 * parts, LangChain content blocks. Unknown shapes give no part rather than a guess.
 */
import {
  mediaPart,
  textPart,
  toolCallPart,
  toolCallResponsePart,
  withMedia,
  type MessagePart,
} from './model.ts';

type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `{ ...value, ...fields }`. V8 copies objects like these (parsed JSON, attribute maps) by a
 * slow path in a spread literal, microseconds a message, and its copy is slow to read;
 * Object.assign makes the same copy quickly, unless `value` has an own `__proto__` key,
 * which assign would set as the copy's prototype instead of copying it.
 */
export function withFields(value: Obj, fields: Obj): Obj {
  return Object.hasOwn(value, '__proto__') ? { ...value, ...fields } : Object.assign({}, value, fields);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The parts of a message's content: a string, a list of parts, or an object holding `parts`. */
export function partsOf(content: unknown): MessagePart[] {
  if (typeof content === 'string') return content === '' ? [] : [textPart(content)];
  if (Array.isArray(content)) {
    const parts: MessagePart[] = [];
    for (const item of content) {
      const part = partOf(item);
      if (part !== undefined) parts.push(part);
    }
    return parts;
  }
  if (isObject(content)) {
    if (Array.isArray(content['parts'])) return partsOf(content['parts']);
    const part = partOf(content);
    return part === undefined ? [] : [part];
  }
  return [];
}

/** The text of content that is text only (tool results, system blocks): parts' texts joined. */
export function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of partsOf(content)) if (part.type === 'text') texts.push(part.content);
  return texts.length === content.length && texts.length > 0 ? texts.join('\n') : undefined;
}

/** A tool result as its text when it is text, else as sent. */
function resultValue(value: unknown): unknown {
  return contentText(value) ?? value;
}

/** Vercel AI SDK tool outputs are tagged (`{"type":"json","value":…}`); the value is the result. */
function vercelOutput(output: unknown): unknown {
  if (isObject(output) && typeof output['type'] === 'string' && 'value' in output) return resultValue(output['value']);
  return output;
}

function imageSource(source: unknown, modality: string): MessagePart | undefined {
  if (!isObject(source)) return undefined;
  const mime = str(source['media_type']) ?? str(source['mediaType']);
  if (source['type'] === 'url') return mediaPart(source['url'], mime, modality);
  if (source['type'] === 'file' && typeof source['file_id'] === 'string') {
    return withMedia({ type: 'file', file_id: source['file_id'] }, mime, modality);
  }
  if (source['type'] === 'text') return typeof source['data'] === 'string' ? textPart(source['data']) : undefined;
  return mediaPart(source['data'], mime, modality);
}

/** A typed part (`{"type": …}`) of any of the libraries. */
function typedPart(p: Obj, type: string): MessagePart | undefined {
  switch (type) {
    case 'text':
    case 'input_text':
    case 'output_text':
    case 'summary_text': {
      const text = str(p['content']) ?? str(p['text']);
      return text === undefined ? undefined : textPart(text);
    }
    case 'refusal': {
      const text = str(p['refusal']) ?? str(p['content']);
      return text === undefined ? undefined : textPart(text);
    }
    case 'reasoning':
    case 'thinking': {
      const text = str(p['content']) ?? str(p['text']) ?? str(p['thinking']) ?? summaryText(p['summary']);
      return text === undefined ? undefined : { type: 'reasoning', content: text };
    }
    case 'tool_call': // GenAI; LangChain's tool calls name their arguments `args`
      return typeof p['name'] === 'string' ? toolCallPart(p['name'], str(p['id']), p['arguments'] ?? p['args']) : undefined;
    case 'tool-call': // Vercel AI SDK (v4 `args`, v5+ `input`)
      return typeof p['toolName'] === 'string' ? toolCallPart(p['toolName'], str(p['toolCallId']), p['input'] ?? p['args']) : undefined;
    case 'tool_use': // Anthropic
    case 'server_tool_use':
      return typeof p['name'] === 'string' ? toolCallPart(p['name'], str(p['id']), p['input']) : undefined;
    case 'function_call': // OpenAI Responses
      return typeof p['name'] === 'string' ? toolCallPart(p['name'], str(p['call_id']) ?? str(p['id']), p['arguments']) : undefined;
    case 'function': // OpenAI chat tool_calls entry
      return functionCall(p);
    case 'server_tool_call': // GenAI, provider-run tools
      return typeof p['name'] === 'string' ? toolCallPart(p['name'], str(p['id']), p['server_tool_call']) : undefined;
    case 'tool_call_response': // GenAI (`result` before semconv 1.37)
      return toolCallResponsePart(str(p['id']), 'response' in p ? p['response'] : p['result']);
    case 'server_tool_call_response':
      return toolCallResponsePart(str(p['id']), p['server_tool_call_response']);
    case 'tool-result': // Vercel AI SDK (v4 `result`, v5+ tagged `output`)
      return toolCallResponsePart(str(p['toolCallId']), 'output' in p ? vercelOutput(p['output']) : p['result']);
    case 'tool_result': // Anthropic
      return toolCallResponsePart(str(p['tool_use_id']), resultValue(p['content']));
    case 'function_call_output': // OpenAI Responses
      return toolCallResponsePart(str(p['call_id']), resultValue(p['output']));
    case 'toolUse': // Strands Agents' TypeScript SDK: a Converse block flattened and tagged with its kind
      return typeof p['name'] === 'string' ? toolCallPart(p['name'], str(p['toolUseId']), p['input']) : undefined;
    case 'toolResult':
      return toolCallResponsePart(str(p['toolUseId']), converseResult(p['content']));
    case 'image_url': {
      const image = p['image_url'];
      return mediaPart(isObject(image) ? image['url'] : image, undefined, 'image');
    }
    case 'input_image':
      if (typeof p['file_id'] === 'string') return withMedia({ type: 'file', file_id: p['file_id'] }, undefined, 'image');
      return mediaPart(p['image_url'], undefined, 'image');
    case 'image':
      if ('source' in p) return imageSource(p['source'], 'image'); // Anthropic
      return mediaPart(p['image'] ?? p['url'] ?? p['data'] ?? p['base64'], mimeOf(p), 'image'); // Vercel, LangChain
    case 'document':
      return imageSource(p['source'], 'document');
    case 'input_audio': {
      const audio = isObject(p['input_audio']) ? p['input_audio'] : {};
      const format = str(audio['format']);
      return mediaPart(audio['data'] ?? '', format === undefined ? undefined : `audio/${format}`, 'audio');
    }
    case 'file':
    case 'input_file':
      return filePart(p);
    case 'uri':
      return typeof p['uri'] === 'string' ? withMedia({ type: 'uri', uri: p['uri'] }, mimeOf(p), str(p['modality'])) : undefined;
    case 'blob':
      if (typeof p['size'] === 'number' && !('content' in p)) {
        return withMedia({ type: 'blob', size: p['size'] }, mimeOf(p), str(p['modality']));
      }
      return mediaPart(p['content'] ?? p['data'] ?? '', mimeOf(p), str(p['modality']));
    default:
      return undefined;
  }
}

function mimeOf(p: Obj): string | undefined {
  return str(p['mime_type']) ?? str(p['mediaType']) ?? str(p['mimeType']) ?? str(p['media_type']);
}

function summaryText(summary: unknown): string | undefined {
  if (!Array.isArray(summary)) return undefined;
  const texts = summary.map((s) => (isObject(s) ? str(s['text']) : str(s))).filter((t): t is string => t !== undefined);
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function functionCall(p: Obj): MessagePart | undefined {
  const fn = p['function'];
  if (!isObject(fn) || typeof fn['name'] !== 'string') return undefined;
  return toolCallPart(fn['name'], str(p['id']), fn['arguments']);
}

function filePart(p: Obj): MessagePart | undefined {
  const mime = mimeOf(p);
  const modality = str(p['modality']);
  const nested = isObject(p['file']) ? p['file'] : undefined; // OpenAI chat: {"type":"file","file":{…}}
  const fileId = str(p['file_id']) ?? (nested ? str(nested['file_id']) : undefined);
  if (fileId !== undefined) return withMedia({ type: 'file', file_id: fileId }, mime, modality);
  const url = str(p['file_url']) ?? str(p['url']);
  if (url !== undefined) return mediaPart(url, mime, modality);
  const data = p['data'] ?? p['file_data'] ?? (nested ? nested['file_data'] : undefined);
  if (data === undefined) return undefined;
  // Vercel AI SDK 7 wraps file data: {"type":"data"|"url"|"text", …}.
  if (isObject(data) && typeof data['type'] === 'string') {
    if (data['type'] === 'url') return mediaPart(data['url'], mime, modality);
    if (data['type'] === 'text') return typeof data['text'] === 'string' ? textPart(data['text']) : undefined;
    return mediaPart(data['data'], mime, modality);
  }
  return mediaPart(data, mime, modality);
}

/** A Gemini or Genkit part (no `type`: one key says what it holds). */
function geminiPart(p: Obj): MessagePart | undefined {
  if (typeof p['text'] === 'string') return p['thought'] === true ? { type: 'reasoning', content: p['text'] } : textPart(p['text']);
  const call = p['functionCall'] ?? p['function_call'];
  if (isObject(call) && typeof call['name'] === 'string') return toolCallPart(call['name'], str(call['id']), call['args']);
  const response = p['functionResponse'] ?? p['function_response'];
  if (isObject(response)) return toolCallResponsePart(str(response['id']), response['response']);
  const inline = p['inlineData'] ?? p['inline_data'];
  if (isObject(inline)) return mediaPart(inline['data'] ?? '', str(inline['mimeType']) ?? str(inline['mime_type']));
  const file = p['fileData'] ?? p['file_data'];
  if (isObject(file)) {
    const uri = str(file['fileUri']) ?? str(file['file_uri']);
    if (uri !== undefined) return mediaPart(uri, str(file['mimeType']) ?? str(file['mime_type']));
  }
  // Genkit parts: `toolRequest` / `toolResponse` (matched by `ref`), `media`, `reasoning`.
  const request = p['toolRequest'];
  if (isObject(request) && typeof request['name'] === 'string') return toolCallPart(request['name'], str(request['ref']), request['input']);
  const result = p['toolResponse'];
  if (isObject(result)) return toolCallResponsePart(str(result['ref']), result['output']);
  const media = p['media'];
  if (isObject(media) && typeof media['url'] === 'string') return mediaPart(media['url'], str(media['contentType']));
  if (typeof p['reasoning'] === 'string') return { type: 'reasoning', content: p['reasoning'] };
  const block = converseBlock(p);
  if (block !== undefined) return block;
  // LangChain tool call ({"name","args","id"}) and OpenAI tool call without its `type`.
  if (typeof p['name'] === 'string' && 'args' in p) return toolCallPart(p['name'], str(p['id']), p['args']);
  if ('function' in p) return functionCall(p);
  return undefined;
}

/**
 * A Bedrock Converse content block, as Strands Agents sends its messages: `toolUse`,
 * `toolResult` (matched by `toolUseId`, its content blocks of `text` or `json`), `json`,
 * `reasoningContent`. Text blocks (`{"text":…}`) share Gemini's shape.
 */
function converseBlock(p: Obj): MessagePart | undefined {
  const use = p['toolUse'];
  if (isObject(use) && typeof use['name'] === 'string') return toolCallPart(use['name'], str(use['toolUseId']), use['input']);
  const result = p['toolResult'];
  if (isObject(result)) return toolCallResponsePart(str(result['toolUseId']), converseResult(result['content']));
  // A tool's structured result (`{"json":…}`), as Strands' TypeScript SDK sends a tool span's
  // output: the value as JSON text, as other conventions carry a tool's result.
  if (Object.keys(p).length === 1 && 'json' in p) return textPart(JSON.stringify(p['json']));
  const reasoning = p['reasoningContent'];
  const text = isObject(reasoning) && isObject(reasoning['reasoningText']) ? str(reasoning['reasoningText']['text']) : undefined;
  return text === undefined ? undefined : { type: 'reasoning', content: text };
}

/** A tool result's blocks: its text, or the one `json` value it returned, else as sent. */
function converseResult(content: unknown): unknown {
  if (Array.isArray(content) && content.length === 1 && isObject(content[0]) && 'json' in content[0]) return content[0]['json'];
  return resultValue(content);
}

/** One part of any library's shape, or undefined for shapes the model does not hold. */
export function partOf(item: unknown): MessagePart | undefined {
  if (typeof item === 'string') return item === '' ? undefined : textPart(item);
  if (!isObject(item)) return undefined;
  const type = item['type'];
  if (typeof type === 'string') return typedPart(item, type);
  return geminiPart(item);
}

/** Tool call parts from an OpenAI / LangChain `tool_calls` list. */
export function toolCallParts(calls: unknown): MessagePart[] {
  if (!Array.isArray(calls)) return [];
  const parts: MessagePart[] = [];
  for (const call of calls) {
    const part = isObject(call) && call['type'] === undefined ? geminiPart(call) : partOf(call);
    if (part?.type === 'tool_call') parts.push(part);
  }
  return parts;
}
