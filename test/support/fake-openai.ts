import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible endpoint: a real HTTP server answering
 * POST /v1/chat/completions with the protocol's JSON (choices[0].message.content, usage).
 * Each request is answered by the test's `answer` function: a reply (possibly late), an
 * error status (429 with Retry-After), or nothing at all until the server closes.
 */
export type FakeAnswer =
  | { reply: string; delayMs?: number }
  | { status: number; retryAfter?: string; body?: string }
  | { hang: true };

export interface FakeRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  authorization: string | null;
  receivedAt: number;
  /** When the answer was fully sent; null while pending or when it never was. */
  answeredAt: number | null;
}

export interface FakeOpenAI {
  /** Base URL to give an evaluator (`…/v1`). */
  baseUrl: string;
  requests: FakeRequest[];
  answer: (request: FakeRequest) => FakeAnswer;
  close(): Promise<void>;
}

export async function startFakeOpenAI(answer: FakeOpenAI['answer']): Promise<FakeOpenAI> {
  const sockets = new Set<Socket>();
  const fake: FakeOpenAI = { baseUrl: '', requests: [], answer, close: async () => {} };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; messages: FakeRequest['messages'] };
    const request: FakeRequest = {
      model: body.model,
      messages: body.messages,
      authorization: req.headers.authorization ?? null,
      receivedAt: Date.now(),
      answeredAt: null,
    };
    fake.requests.push(request);
    const decided = fake.answer(request);
    if ('hang' in decided) return;
    if ('status' in decided) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (decided.retryAfter !== undefined) headers['retry-after'] = decided.retryAfter;
      res.writeHead(decided.status, headers).end(decided.body ?? '{"error":{"message":"fake error"}}', () => {
        request.answeredAt = Date.now();
      });
      return;
    }
    if (decided.delayMs) await new Promise((r) => setTimeout(r, decided.delayMs));
    if (res.destroyed) return;
    const reply = {
      id: `chatcmpl-${fake.requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: decided.reply }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 },
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply), () => {
      request.answeredAt = Date.now();
    });
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
