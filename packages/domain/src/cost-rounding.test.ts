import { describe, expect, it } from 'vitest';
import { COST_DECIMALS, roundCost, roundCostOrNull } from './cost-rounding.ts';

describe('roundCost', () => {
  it('answers sums of prices without float noise', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(roundCost(0.1 + 0.2)).toBe(0.3);
    expect(roundCost((1200 * 2.5 + 300 * 10) / 1_000_000)).toBe(0.006);
    expect(String(roundCost(0.0035 + 0.0011 + 0.0007))).toBe('0.0053');
  });

  it('keeps ten decimal places, and values too small or too large to carry noise there', () => {
    expect(COST_DECIMALS).toBe(10);
    expect(roundCost(0.12345678901234)).toBe(0.123456789);
    expect(roundCost(1.23456789016e-3)).toBe(0.0012345679);
    expect(roundCost(4e-11)).toBe(0);
    expect(roundCost(6e-11)).toBe(1e-10);
    expect(roundCost(0)).toBe(0);
    expect(roundCost(2_500_000.123)).toBe(2_500_000.123);
  });

  it('takes halves to the even neighbour, as the engine does', () => {
    // 2.5e-10 × 1e10 and 3.5e-10 × 1e10 are 2.5 and 3.5 exactly in floating point.
    expect(roundCost(2.5e-10)).toBe(2e-10);
    expect(roundCost(3.5e-10)).toBe(4e-10);
  });

  it('leaves a missing value missing', () => {
    expect(roundCostOrNull(null)).toBeNull();
    expect(roundCostOrNull(0.1 + 0.2)).toBe(0.3);
  });
});
