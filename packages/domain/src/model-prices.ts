/**
 * The model price table shipped with the service: public list prices in USD per
 * 1 million tokens, standard (non-batch) tier, shortest-context tier where a
 * provider charges more for long prompts. Compiled from the providers' pricing
 * pages as known in late 2025; deployments correct or extend it with overrides
 * (see loadPriceTable) rather than editing this file.
 *
 * Keys are lower-case model names without provider prefix or date suffix; lookup
 * strips those from reported names (prices.ts). A dated key is only listed when
 * that snapshot is priced differently from the alias.
 *
 * Fields: input, output, cachedInput (cache read), cacheWrite (Anthropic-style cache
 * creation), reasoning (defaults to the output rate).
 */
/** USD per 1 million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cache reads; the input rate when absent. */
  cachedInput?: number;
  /** Cache creation (Anthropic-style); the input rate when absent. */
  cacheWrite?: number;
  /** Reasoning tokens; the output rate when absent. */
  reasoning?: number;
}

/** Anthropic: cache reads cost 10% of input, 5-minute cache writes 125%. */
function anthropic(input: number, output: number): ModelPrice {
  return { input, output, cachedInput: input / 10, cacheWrite: input * 1.25 };
}

export const SHIPPED_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5.1': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  'gpt-5-pro': { input: 15, output: 120 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-2024-05-13': { input: 5, output: 15 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'gpt-4.5-preview': { input: 75, output: 150, cachedInput: 37.5 },
  'o1': { input: 15, output: 60, cachedInput: 7.5 },
  'o1-mini': { input: 1.1, output: 4.4, cachedInput: 0.55 },
  'o1-pro': { input: 150, output: 600 },
  'o3': { input: 2, output: 8, cachedInput: 0.5 },
  'o3-pro': { input: 20, output: 80 },
  'o3-mini': { input: 1.1, output: 4.4, cachedInput: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-4-1106-preview': { input: 10, output: 30 },
  'gpt-4-0125-preview': { input: 10, output: 30 },
  'gpt-4': { input: 30, output: 60 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
  'text-embedding-ada-002': { input: 0.1, output: 0 },

  // Anthropic
  'claude-opus-4-5': anthropic(5, 25),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-opus': anthropic(15, 75),
  'claude-3-sonnet': anthropic(3, 15),
  'claude-3-haiku': { input: 0.25, output: 1.25, cachedInput: 0.03, cacheWrite: 0.3 },

  // Google (Gemini API; prompts up to 128k/200k tokens)
  'gemini-3-pro': { input: 2, output: 12, cachedInput: 0.2 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cachedInput: 0.01 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
  'gemini-1.5-pro': { input: 1.25, output: 5, cachedInput: 0.3125 },
  'gemini-1.5-flash': { input: 0.075, output: 0.3, cachedInput: 0.01875 },
  'gemini-1.5-flash-8b': { input: 0.0375, output: 0.15, cachedInput: 0.01 },
  'gemini-embedding-001': { input: 0.15, output: 0 },

  // Mistral (La Plateforme)
  'mistral-large': { input: 2, output: 6 },
  'mistral-medium': { input: 0.4, output: 2 },
  'mistral-small': { input: 0.1, output: 0.3 },
  'magistral-medium': { input: 2, output: 5 },
  'magistral-small': { input: 0.5, output: 1.5 },
  'codestral': { input: 0.3, output: 0.9 },
  'pixtral-large': { input: 2, output: 6 },
  'ministral-8b': { input: 0.1, output: 0.1 },
  'ministral-3b': { input: 0.04, output: 0.04 },
  'open-mistral-nemo': { input: 0.15, output: 0.15 },
  'mistral-embed': { input: 0.1, output: 0 },

  // DeepSeek (V3.2 pricing, shared by both endpoints)
  'deepseek-chat': { input: 0.28, output: 0.42, cachedInput: 0.028 },
  'deepseek-reasoner': { input: 0.28, output: 0.42, cachedInput: 0.028 },

  // xAI
  'grok-4': { input: 3, output: 15, cachedInput: 0.75 },
  'grok-3': { input: 3, output: 15, cachedInput: 0.75 },
  'grok-3-mini': { input: 0.3, output: 0.5, cachedInput: 0.075 },

  // Meta Llama, under the model ids of common hosts (Groq, Together)
  'llama-3.3-70b-versatile': { input: 0.59, output: 0.79 },
  'llama-3.1-8b-instant': { input: 0.05, output: 0.08 },
  'llama-3.3-70b-instruct-turbo': { input: 0.88, output: 0.88 },
  'meta-llama-3.1-8b-instruct-turbo': { input: 0.18, output: 0.18 },
  'meta-llama-3.1-70b-instruct-turbo': { input: 0.88, output: 0.88 },
  'meta-llama-3.1-405b-instruct-turbo': { input: 3.5, output: 3.5 },
};
