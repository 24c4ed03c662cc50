/**
 * Model price table: the shipped list (model-prices.ts) merged with deployment
 * overrides, and the lookup from a reported model name to a price.
 */
import * as v from 'valibot';
import { SHIPPED_MODEL_PRICES, type ModelPrice } from './model-prices.ts';
import { modelNameCandidates } from './model-name.ts';

/**
 * Prices by lower-case model name. A key may also be "provider/model" to price one
 * provider's offering differently (e.g. "azure/gpt-4o"); it wins when the span's
 * provider matches.
 */
export interface PriceTable {
  readonly models: ReadonlyMap<string, ModelPrice>;
}

export interface PriceMatch {
  /** The table key that matched. */
  key: string;
  price: ModelPrice;
}

const Rate = v.pipe(v.number(), v.finite(), v.minValue(0));
const ModelPriceSchema = v.strictObject({
  input: Rate,
  output: Rate,
  cachedInput: v.optional(Rate),
  cacheWrite: v.optional(Rate),
  reasoning: v.optional(Rate),
});
const OverridesSchema = v.record(v.pipe(v.string(), v.trim(), v.nonEmpty('model name is empty')), ModelPriceSchema);

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const [model, field] = (issue.path ?? []).map((item) => String(item.key));
  const where =
    model === undefined ? 'price overrides' : field === undefined ? `model "${model}"` : `model "${model}", field "${field}"`;
  return `${where}: ${issue.message}`;
}

/**
 * The shipped prices with `overrides` (a `{ [model]: ModelPrice }` object, e.g. parsed
 * from the configured JSON file) laid over them. An override replaces the whole entry
 * for its model. Throws an Error naming every invalid entry.
 */
export function loadPriceTable(overrides?: unknown): PriceTable {
  const models = new Map<string, ModelPrice>(Object.entries(SHIPPED_MODEL_PRICES));
  if (overrides !== undefined) {
    const result = v.safeParse(OverridesSchema, overrides);
    if (!result.success) {
      throw new Error(`Invalid model price overrides: ${result.issues.map(describeIssue).join('; ')}`);
    }
    for (const [model, price] of Object.entries(result.output)) models.set(model.toLowerCase(), price);
  }
  const table: PriceTable = { models };
  indexes.set(table, buildIndex(models));
  return table;
}

interface LookupIndex {
  /** Keys, longest first, for prefix matching. */
  byLength: string[];
  /**
   * Raw provider → raw model → result; the same few models repeat millions of times. Two
   * levels, not one joined key: a joined key is a new string to hash on every lookup.
   */
  cache: Map<string, Map<string, PriceMatch | null>>;
  /** Results in the cache, all providers together. */
  cached: number;
}

/** Bounded so a stream of distinct garbage model names cannot grow memory without limit. */
const MAX_CACHED_LOOKUPS = 10_000;
const indexes = new WeakMap<PriceTable, LookupIndex>();

function buildIndex(models: ReadonlyMap<string, ModelPrice>): LookupIndex {
  return { byLength: [...models.keys()].sort((a, b) => b.length - a.length), cache: new Map(), cached: 0 };
}

function exactMatch(models: ReadonlyMap<string, ModelPrice>, key: string): PriceMatch | undefined {
  const price = models.get(key);
  return price === undefined ? undefined : { key, price };
}

/** The longest key that `name` starts with, followed by a separator (so "gpt-4" never matches "gpt-4o"). */
function prefixMatch(index: LookupIndex, models: ReadonlyMap<string, ModelPrice>, name: string): PriceMatch | undefined {
  for (const key of index.byLength) {
    if (key.length >= name.length || !name.startsWith(key)) continue;
    const next = name.charCodeAt(key.length);
    // '-' '_' ':' '@'
    if (next === 45 || next === 95 || next === 58 || next === 64) return exactMatch(models, key);
  }
  return undefined;
}

function lookup(table: PriceTable, index: LookupIndex, model: string, provider: string): PriceMatch | null {
  const { models } = table;
  const candidates = modelNameCandidates(model);
  const scope = provider === '' ? undefined : `${provider.toLowerCase()}/`;
  for (const name of candidates) {
    const match = (scope === undefined ? undefined : exactMatch(models, scope + name)) ?? exactMatch(models, name);
    if (match !== undefined) return match;
  }
  const mostNormalised = candidates[candidates.length - 1] ?? '';
  const match =
    (scope === undefined ? undefined : prefixMatch(index, models, scope + mostNormalised)) ??
    prefixMatch(index, models, mostNormalised);
  return match ?? null;
}

/**
 * Price for a reported model name, case-insensitive: exact name, then without a
 * provider prefix, then without a snapshot/date suffix, then the longest known
 * prefix. null when nothing matches.
 */
export function findModelPrice(table: PriceTable, model: string, provider?: string): PriceMatch | null {
  if (model === '') return null;
  provider ??= '';
  let index = indexes.get(table);
  if (index === undefined) {
    index = buildIndex(table.models);
    indexes.set(table, index);
  }
  let byModel = index.cache.get(provider);
  const cached = byModel?.get(model);
  if (cached !== undefined) return cached;
  const result = lookup(table, index, model, provider);
  if (index.cached >= MAX_CACHED_LOOKUPS) {
    index.cache.clear();
    index.cached = 0;
    byModel = undefined;
  }
  if (byModel === undefined) index.cache.set(provider, (byModel = new Map()));
  byModel.set(model, result);
  index.cached++;
  return result;
}
