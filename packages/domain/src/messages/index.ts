/** The message model: one shape for every instrumentation's conversations (see model.ts). */
export {
  MESSAGE_ROLES,
  type BlobPart,
  type ChatMessage,
  type Conversation,
  type FilePart,
  type JsonValue,
  type MessagePart,
  type MessageRole,
  type ReasoningPart,
  type TextPart,
  type ToolCallPart,
  type ToolCallResponsePart,
  type UriPart,
} from './model.ts';
export { apiMessages, apiParts, type ApiChatMessage, type ApiMessagePart } from './api.ts';
export { readableInput, readableOutput, renderToolCall } from './readable.ts';
export { conversationFromEvents, GENAI_MESSAGE_EVENTS, type EventConversation, type GenAiEventRecord } from './events.ts';
