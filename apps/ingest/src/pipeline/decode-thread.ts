import { loadPrices, type PriceTable } from '@aos/domain';
import type { ReadExportFailure } from '@aos/otlp';
import { createPolicyCache, type MaskingSource } from './masking-source.ts';
import { readSpanRows, type SpanRowsInput, type SpanRowsResult } from './span-rows.ts';

/** One body for a decode thread: what readSpanRows takes, with the policy and prices in a form that crosses threads. */
export interface DecodeTask extends SpanRowsInput {
  masking: MaskingSource | null;
  /** MODEL_PRICES_FILE; the thread reads it once. */
  pricesFile: string | undefined;
}

const compiledPolicy = createPolicyCache();
let prices: { file: string | undefined; table: PriceTable } | undefined;

/** The task function of the decode pool's threads (loaded through decode-thread-boot.mjs). */
export default function decode(task: DecodeTask): SpanRowsResult | ReadExportFailure {
  if (!prices || prices.file !== task.pricesFile) prices = { file: task.pricesFile, table: loadPrices(task.pricesFile) };
  return readSpanRows(task, task.masking ? compiledPolicy(task.masking) : null, prices.table);
}
