import { readFileSync } from 'node:fs';
import { loadPriceTable, type PriceTable } from '@aos/domain';
import { ConfigError } from '@aos/config';

/** The shipped model price table, with the overrides of MODEL_PRICES_FILE when set. */
export function loadPrices(file: string | undefined): PriceTable {
  if (!file) return loadPriceTable();
  let overrides: unknown;
  try {
    overrides = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`MODEL_PRICES_FILE: cannot read ${file} as JSON: ${(err as Error).message}`);
  }
  try {
    return loadPriceTable(overrides);
  } catch (err) {
    throw new ConfigError(`MODEL_PRICES_FILE: ${(err as Error).message}`);
  }
}
