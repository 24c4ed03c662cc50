/** How much engine work a request can cause, which decides its budget and whether it needs a heavy-read slot. */
export type ReadCost = 'light' | 'heavy' | 'export';

/**
 * Reads over a time window, whose work grows with the window and the project's data (paths
 * below /api/v1). Everything else reads a bounded set of rows: one trace, a page of a
 * project's configuration, a write's checks.
 */
const HEAVY_READS = [
  /^\/traces\/?$/,
  /^\/traces\/(summary|timeseries)\/?$/,
  /^\/traces\/sessions(\/.*)?$/,
  /^\/traces\/spans\/?$/,
  /^\/trace-evaluators\/stats\/?$/,
  /^\/trace-scores(\/summary)?\/?$/,
  /^\/trace-metrics\/?$/,
];
/** A monitor's measure over its window, computed for a draft. */
const HEAVY_POSTS = /^\/trace-monitors\/preview\/?$/;
/** Streams of a whole window: a statement per slice, each with the export budget. */
const EXPORTS = /^\/traces\/(spans\/)?export\/?$/;

/** The cost class of a request, by method and its path below /api/v1. */
export function readCostOf(method: string, path: string): ReadCost {
  if (method === 'POST' && HEAVY_POSTS.test(path)) return 'heavy';
  if (method !== 'GET') return 'light';
  if (EXPORTS.test(path)) return 'export';
  return HEAVY_READS.some((pattern) => pattern.test(path)) ? 'heavy' : 'light';
}
