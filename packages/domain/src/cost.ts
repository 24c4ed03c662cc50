/**
 * Span cost in USD. An explicit cost attribute wins (the instrumentation knew the
 * real price, e.g. negotiated rates or gateway billing); otherwise the price table.
 */
import type { SpanRow } from './span-row.ts';
import type { TokenCounts } from './tokens.ts';
import { findModelPrice, type PriceTable } from './prices.ts';

export interface CostResult {
  cost: number;
  source: SpanRow['cost_source'];
  /** Tokens were reported but no price matches the model (or there is no model). */
  unknownPrice: boolean;
}

const NO_COST: CostResult = { cost: 0, source: '', unknownPrice: false };
const UNKNOWN_PRICE: CostResult = { cost: 0, source: '', unknownPrice: true };

export function computeCost(
  explicitCost: number | undefined,
  tokens: TokenCounts,
  model: string,
  provider: string,
  prices: PriceTable,
): CostResult {
  if (explicitCost !== undefined && explicitCost >= 0) {
    return { cost: explicitCost, source: 'explicit', unknownPrice: false };
  }
  if (tokens.input === 0 && tokens.output === 0) return NO_COST;
  const match = findModelPrice(prices, model, provider);
  if (match === null) return UNKNOWN_PRICE;
  const { price } = match;
  // Sub-counts are contained in input/output (tokens.ts guarantees it); price each part once.
  const uncachedInput = Math.max(0, tokens.input - tokens.cachedInput - tokens.cacheWrite);
  const visibleOutput = Math.max(0, tokens.output - tokens.reasoning);
  const perMillion =
    uncachedInput * price.input +
    tokens.cachedInput * (price.cachedInput ?? price.input) +
    tokens.cacheWrite * (price.cacheWrite ?? price.input) +
    visibleOutput * price.output +
    tokens.reasoning * (price.reasoning ?? price.output);
  return { cost: perMillion / 1_000_000, source: 'price_table', unknownPrice: false };
}
