/**
 * A client for OpenAI-compatible chat completions (`POST {baseUrl}/chat/completions`), with
 * a timeout per attempt and retries with exponential backoff on what is worth retrying:
 * 429 (honouring Retry-After, capped), 5xx, timeouts and network errors. Other 4xx fail at
 * once: the request itself is wrong (model name, key).
 */
import { outboundUrlProblem } from '@aos/http';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ModelCallSettings {
  /** e.g. https://api.openai.com/v1 (the path /chat/completions is appended). */
  baseUrl: string;
  model: string;
  apiKey: string | null;
  temperature: number;
  maxTokens: number;
  timeoutMs: number;
  maxAttempts: number;
  /** First backoff; doubled per attempt, with jitter. */
  backoffMs: number;
  /** Longest wait between attempts, Retry-After included. */
  maxBackoffMs: number;
  /** Refuse a base URL that resolves to a private address (one a user gave, not the service's own). */
  publicOnly: boolean;
}

export interface ChatReply {
  content: string;
  usage: { promptTokens: number; completionTokens: number };
  attempts: number;
}

export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'ModelCallError';
  }
}

class AttemptError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends the messages and returns the reply's text; throws ModelCallError after the last attempt. */
export async function chatCompletion(settings: ModelCallSettings, messages: ChatMessage[]): Promise<ChatReply> {
  let lastError = 'no attempt made';
  for (let attempt = 1; attempt <= settings.maxAttempts; attempt++) {
    try {
      const reply = await attemptOnce(settings, messages);
      return { ...reply, attempts: attempt };
    } catch (err) {
      const failure = err instanceof AttemptError ? err : new AttemptError(String((err as Error).message ?? err), true);
      lastError = failure.message;
      if (!failure.retryable || attempt === settings.maxAttempts) {
        throw new ModelCallError(`${failure.message} (after ${attempt} attempt${attempt === 1 ? '' : 's'})`, attempt);
      }
      const backoff = settings.backoffMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
      await sleep(Math.min(settings.maxBackoffMs, failure.retryAfterMs ?? backoff));
    }
  }
  throw new ModelCallError(lastError, settings.maxAttempts);
}

async function attemptOnce(settings: ModelCallSettings, messages: ChatMessage[]) {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  if (settings.publicOnly) {
    const problem = await outboundUrlProblem(settings.baseUrl, false);
    if (problem) throw new AttemptError(`the model endpoint is not allowed: ${problem}`, false);
  }
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      // A redirect could lead anywhere, private addresses included.
      redirect: 'error',
      method: 'POST',
      headers,
      body: JSON.stringify({ model: settings.model, messages, temperature: settings.temperature, max_tokens: settings.maxTokens }),
      signal: timeout,
    });
  } catch (err) {
    if (timeout.aborted) throw new AttemptError(`the model did not answer within ${settings.timeoutMs} ms`, true);
    throw new AttemptError(`could not reach the model endpoint: ${(err as Error).message}`, true);
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw new AttemptError(`the model did not finish answering within ${settings.timeoutMs} ms`, true);
  }
  if (response.status === 429) {
    throw new AttemptError('the model endpoint answered 429 (rate limited)', true, retryAfterMs(response.headers.get('retry-after')));
  }
  if (response.status >= 500) throw new AttemptError(`the model endpoint answered ${response.status}`, true);
  if (!response.ok) throw new AttemptError(`the model endpoint answered ${response.status}: ${text.slice(0, 300)}`, false);
  let body: { choices?: Array<{ message?: { content?: unknown } }>; usage?: { prompt_tokens?: number; completion_tokens?: number } };
  try {
    body = JSON.parse(text);
  } catch {
    throw new AttemptError(`the model endpoint answered something that is not JSON: ${text.slice(0, 200)}`, false);
  }
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new AttemptError('the model endpoint answered without choices[0].message.content', false);
  return {
    content,
    usage: { promptTokens: Number(body.usage?.prompt_tokens ?? 0), completionTokens: Number(body.usage?.completion_tokens ?? 0) },
  };
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}
