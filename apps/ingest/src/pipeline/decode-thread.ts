import { Tinypool, type Transferable } from 'tinypool';
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
  return movingRows(readSpanRows(task, task.masking ? compiledPolicy(task.masking) : null, prices.table));
}

/**
 * The result, its rows' memory moved to the main thread rather than copied (~1.2 MB for
 * 1,000 spans, cloned there again and counted by its collector). Only memory the rows own
 * whole moves: a view into a larger buffer would take the rest along.
 */
export function movingRows(result: SpanRowsResult | ReadExportFailure): SpanRowsResult | ReadExportFailure {
  const chunk = result.ok ? result.batch?.chunk : undefined;
  if (!chunk || chunk.byteOffset !== 0 || chunk.byteLength !== chunk.buffer.byteLength || !(chunk.buffer instanceof ArrayBuffer)) return result;
  // Tinypool's own form of a result with transferables: the value, and what moves with it
  // (its typings name the two keys by symbols of their own, hence the cast).
  const moving = { [Tinypool.transferableSymbol]: [chunk.buffer], [Tinypool.valueSymbol]: result } as unknown as Transferable;
  return Tinypool.move(moving) as unknown as SpanRowsResult;
}
