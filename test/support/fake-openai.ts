import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible endpoint: a real HTTP server speaking the
 * protocol's JSON and server-sent events, so real client libraries can be pointed at it.
 *
 * - POST /v1/chat/completions: answered by the test's `answer` function with a reply
 *   (possibly late), tool calls, an error status (OpenAI's error body, 429 with
 *   Retry-After), or nothing at all until the server closes. A request with `stream: true`
 *   is answered as `chat.completion.chunk` events, ending with a usage chunk when
 *   `stream_options.include_usage` asks for one, then `data: [DONE]`.
 * - POST /v1/embeddings: one small vector per input (as floats, or base64 when the client
 *   asks for `encoding_format: "base64"`, as the `openai` SDK does by default).
 */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

export interface FakeToolCall {
  id: string;
  name: string;
  /** JSON text, as the protocol carries it. */
  arguments: string;
}

export type FakeAnswer =
  | { reply: string; delayMs?: number; usage?: FakeUsage }
  | { toolCalls: FakeToolCall[]; usage?: FakeUsage }
  | { status: number; retryAfter?: string; body?: string }
  | { hang: true };

export interface FakeRequest {
  /** `/v1/chat/completions` or `/v1/embeddings`. */
  path: string;
  model: string;
  /** Chat messages (empty for embeddings); the evaluator tests' judge prompts are plain text. */
  messages: Array<{ role: string; content: string }>;
  /** The whole request body as sent (tools, stream options, embedding inputs). */
  body: Record<string, unknown>;
  authorization: string | null;
  receivedAt: number;
  /** When the answer was fully sent; null while pending or when it never was. */
  answeredAt: number | null;
}

export interface FakeOpenAI {
  /** Base URL to give an evaluator or an OpenAI client (`…/v1`). */
  baseUrl: string;
  requests: FakeRequest[];
  answer: (request: FakeRequest) => FakeAnswer;
  close(): Promise<void>;
}

export const DEFAULT_USAGE: FakeUsage = { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 };
/** Tokens counted per embedded input. */
export const EMBEDDING_TOKENS_PER_INPUT = 8;
/** Pause between streamed chunks, so a first chunk comes measurably before the last. */
const CHUNK_GAP_MS = 15;

const OPENAI_ERROR_BODY = JSON.stringify({
  error: { message: 'The model `missing-model` does not exist or you do not have access to it.', type: 'invalid_request_error', param: null, code: 'model_not_found' },
});

function completionId(fake: FakeOpenAI): string {
  return `chatcmpl-${fake.requests.length}`;
}

function toolCallsMessage(calls: FakeToolCall[]) {
  return calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
}

function answerJson(res: ServerResponse, fake: FakeOpenAI, request: FakeRequest, decided: Extract<FakeAnswer, { usage?: FakeUsage }>, done: () => void): void {
  const message = 'reply' in decided ? { role: 'assistant', content: decided.reply } : { role: 'assistant', content: null, tool_calls: toolCallsMessage(decided.toolCalls) };
  const reply = {
    id: completionId(fake),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: 'reply' in decided ? 'stop' : 'tool_calls' }],
    usage: decided.usage ?? DEFAULT_USAGE,
  };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply), done);
}

/** The reply cut in a few pieces, each its own chunk (as a model streams tokens). */
function pieces(text: string): string[] {
  const words = text.split(/(?<= )/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 2) out.push(words.slice(i, i + 2).join(''));
  return out;
}

async function answerStream(res: ServerResponse, fake: FakeOpenAI, request: FakeRequest, decided: Extract<FakeAnswer, { usage?: FakeUsage }>, done: () => void): Promise<void> {
  const includeUsage = (request.body['stream_options'] as { include_usage?: boolean } | undefined)?.include_usage === true;
  const base = { id: completionId(fake), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model };
  const send = (choices: unknown[], usage?: FakeUsage | null) =>
    res.write(`data: ${JSON.stringify({ ...base, choices, ...(includeUsage ? { usage: usage ?? null } : {}) })}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  send([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  if ('reply' in decided) {
    for (const piece of pieces(decided.reply)) {
      await new Promise((r) => setTimeout(r, CHUNK_GAP_MS));
      send([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]);
    }
  } else {
    decided.toolCalls.forEach((call, index) =>
      send([{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] }, logprobs: null, finish_reason: null }]),
    );
  }
  send([{ index: 0, delta: {}, logprobs: null, finish_reason: 'reply' in decided ? 'stop' : 'tool_calls' }]);
  if (includeUsage) send([], decided.usage ?? DEFAULT_USAGE);
  res.end('data: [DONE]\n\n', done);
}

function embeddingOf(index: number): number[] {
  return [0.25 + index, -0.5, 0.125];
}

function answerEmbeddings(res: ServerResponse, request: FakeRequest, done: () => void): void {
  const input = request.body['input'];
  const inputs = Array.isArray(input) ? input : [input];
  const base64 = request.body['encoding_format'] === 'base64';
  const data = inputs.map((_, index) => {
    const vector = embeddingOf(index);
    return { object: 'embedding', index, embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector };
  });
  const tokens = inputs.length * EMBEDDING_TOKENS_PER_INPUT;
  const reply = { object: 'list', data, model: request.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply), done);
}

const PATHS = new Set(['/v1/chat/completions', '/v1/embeddings']);

export async function startFakeOpenAI(answer: FakeOpenAI['answer']): Promise<FakeOpenAI> {
  const sockets = new Set<Socket>();
  const fake: FakeOpenAI = { baseUrl: '', requests: [], answer, close: async () => {} };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method !== 'POST' || !PATHS.has(path)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const request: FakeRequest = {
      path,
      model: String(body['model']),
      messages: Array.isArray(body['messages']) ? (body['messages'] as FakeRequest['messages']) : [],
      body,
      authorization: req.headers.authorization ?? null,
      receivedAt: Date.now(),
      answeredAt: null,
    };
    fake.requests.push(request);
    const done = () => {
      request.answeredAt = Date.now();
    };
    const decided = fake.answer(request);
    if ('hang' in decided) return;
    if ('status' in decided) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (decided.retryAfter !== undefined) headers['retry-after'] = decided.retryAfter;
      res.writeHead(decided.status, headers).end(decided.body ?? OPENAI_ERROR_BODY, done);
      return;
    }
    if (path === '/v1/embeddings') return answerEmbeddings(res, request, done);
    if ('delayMs' in decided && decided.delayMs) await new Promise((r) => setTimeout(r, decided.delayMs));
    if (res.destroyed) return;
    if (body['stream'] === true) return answerStream(res, fake, request, decided, done);
    answerJson(res, fake, request, decided, done);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  fake.baseUrl = `http://127.0.0.1:${address.port}/v1`;
  fake.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}

/** A judge's JSON reply. */
export const judgeReply = (score: unknown, reasoning = 'because') => JSON.stringify({ score, reasoning });
