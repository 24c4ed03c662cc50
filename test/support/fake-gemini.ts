import { createServer } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A local stand-in for the Gemini API's `generateContent` REST method
 * (`POST /v1beta/models/{model}:generateContent`), enough for the `@google/genai` client,
 * which takes it as its base URL from GOOGLE_GEMINI_BASE_URL. The test's `answer` turns the
 * request's `contents` (and whether it declares tools) into a reply: text, or function calls.
 */
export interface GeminiRequest {
  model: string;
  body: { contents?: Array<{ role?: string; parts?: Array<Record<string, unknown>> }>; tools?: unknown[] } & Record<string, unknown>;
}

export type GeminiAnswer = { text: string } | { functionCalls: Array<{ name: string; args: Record<string, unknown> }> };

/** Token counts every answer reports, with the cached and thinking parts Gemini sends. */
export const GEMINI_USAGE = { promptTokenCount: 120, candidatesTokenCount: 20, cachedContentTokenCount: 64, thoughtsTokenCount: 8, totalTokenCount: 148 };

export interface FakeGemini {
  /** The base URL to give the client (`http://127.0.0.1:port`). */
  baseUrl: string;
  requests: GeminiRequest[];
  close(): Promise<void>;
}

const GENERATE = /^\/v1beta\/models\/([^/:]+):generateContent$/;

function responseOf(model: string, answer: GeminiAnswer) {
  const parts = 'text' in answer ? [{ text: answer.text }] : answer.functionCalls.map((call) => ({ functionCall: call }));
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: GEMINI_USAGE,
    modelVersion: model,
    responseId: `resp-${Date.now()}`,
  };
}

export async function startFakeGemini(answer: (request: GeminiRequest) => GeminiAnswer): Promise<FakeGemini> {
  const sockets = new Set<Socket>();
  const fake: FakeGemini = { baseUrl: '', requests: [], close: async () => {} };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const match = GENERATE.exec((req.url ?? '').split('?')[0]!);
    if (req.method !== 'POST' || match === null) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}');
      return;
    }
    const request: GeminiRequest = { model: match[1]!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
    fake.requests.push(request);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(responseOf(request.model, answer(request))));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  fake.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}
