/** @aos/domain: turning decoded OTLP spans into stored span rows. */
export { spanRowsFromExport, type NormalizeContext } from './normalize.ts';
export {
  SPAN_TYPES,
  SPAN_STATUSES,
  SPAN_QUALITY_FLAGS,
  TRACE_TREE_QUALITY_FLAGS,
  type SpanRow,
  type SpanType,
  type SpanStatus,
  type SpanQualityFlag,
} from './span-row.ts';
export { loadPriceTable, findModelPrice, type PriceTable, type ModelPrice, type PriceMatch } from './prices.ts';
export { restoreAttributes } from './promoted-attributes.ts';
