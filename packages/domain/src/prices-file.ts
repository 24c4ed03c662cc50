import { readFileSync } from 'node:fs';
import { loadPriceTable, type PriceTable } from './prices.ts';
import { ConfigError } from '@aos/config';

/**
 * The shipped model price table, with the overrides of MODEL_PRICES_FILE when set. Read by
 * ingest, which normalizes spans, and by the writer, which normalizes jobs queued by an
 * older version.
 */
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
