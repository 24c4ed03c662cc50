/**
 * Costs as the API answers them: rounded to 1e-10 USD, so sums of prices read as the
 * amounts they are (0.3, not 0.30000000000000004). Stored costs keep full precision; each
 * read path rounds once, where it turns stored figures into its answer.
 */

/** Decimal places of a cost in an answer. */
export const COST_DECIMALS = 10;

const SCALE = 10 ** COST_DECIMALS;

/**
 * A cost rounded to COST_DECIMALS places exactly as ClickHouse's round(x, 10) rounds a
 * Float64 (exports are formatted by the engine and must read the same): scaled, rounded
 * half to even, scaled back.
 */
export function roundCost(usd: number): number {
  const scaled = usd * SCALE;
  let rounded = Math.round(scaled);
  // Math.round takes halves up; the engine takes them to the even neighbour.
  if (rounded - scaled === 0.5 && rounded % 2 !== 0) rounded -= 1;
  return rounded / SCALE;
}

/** roundCost for a value that may be missing (a mean over no traces). */
export function roundCostOrNull(usd: number | null): number | null {
  return usd === null ? null : roundCost(usd);
}
