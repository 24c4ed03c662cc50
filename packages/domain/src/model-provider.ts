/**
 * The provider of a model when the span does not say: many instrumentations record only
 * the model name, and "which provider is this spend with" is one of the first questions
 * asked of the data. Only unambiguous families are mapped; anything else stays unknown.
 */
const FAMILIES: ReadonlyArray<[RegExp, string]> = [
  [/^(gpt-|chatgpt-|o1(-|$)|o3(-|$)|o4-|text-embedding-|davinci|babbage|dall-e|whisper|tts-)/, 'openai'],
  [/^claude-/, 'anthropic'],
  [/^(gemini-|gemma-)/, 'google'],
  [/^(mistral-|codestral|ministral|magistral|pixtral|open-mistral|open-mixtral)/, 'mistral'],
  [/^deepseek-/, 'deepseek'],
  [/^grok-/, 'xai'],
  [/^command(-|$)/, 'cohere'],
];

/** Known provider prefixes in model names such as `openai/gpt-4o` or `anthropic.claude-…`. */
const PREFIX = /^(openai|anthropic|google|mistral|deepseek|xai|cohere)[/.:]/;

export function inferProvider(model: string): string {
  const name = model.trim().toLowerCase();
  const prefixed = PREFIX.exec(name);
  if (prefixed) return prefixed[1]!;
  const bare = name.replace(/^models\//, '');
  for (const [pattern, provider] of FAMILIES) if (pattern.test(bare)) return provider;
  return '';
}

/**
 * A reported provider name in the GenAI conventions' form: semconv names the provider
 * (`openai`, `aws.bedrock`, `gcp.vertex_ai`), some SDKs their API (`openai.chat`,
 * `anthropic.messages`, `google.generative-ai`), whose suffix is dropped.
 */
const SEMCONV_DOTTED_PROVIDERS = new Set([
  'aws.bedrock',
  'azure.ai.inference',
  'azure.ai.openai',
  'gcp.gemini',
  'gcp.gen_ai',
  'gcp.vertex_ai',
  'ibm.watsonx.ai',
]);

/**
 * Agent SDKs that put their own name where the provider belongs (Strands Agents, Google
 * ADK): no provider is said, so the model's name tells, as it does for cost.
 */
const SDK_NAMES = new Set(['strands-agents', 'gcp.vertex.agent']);

export function normalizeProvider(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const lower = raw.trim().toLowerCase();
  if (SDK_NAMES.has(lower)) return undefined;
  if (SEMCONV_DOTTED_PROVIDERS.has(lower)) return lower;
  const dot = lower.indexOf('.');
  return dot > 0 ? lower.slice(0, dot) : lower;
}
