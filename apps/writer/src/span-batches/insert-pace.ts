/**
 * The engine's pace at inserting, learnt from the writer's recent inserts, and the block
 * size that pace finishes within a target time.
 *
 * Why: an insert holds the embedded engine whole (it runs one statement at a time), so every
 * read that arrives meanwhile waits for it. Blocks sized by rows alone grow toward
 * WRITER_BATCH_MAX_ROWS as the engine falls behind, and each then holds readers for seconds
 * (issue 33); sized by time as well, no insert holds them much longer than the target.
 */

/** How many recent inserts the pace is taken over: enough to smooth one slow insert out, few enough to follow a change of load. */
const RECENT_INSERTS = 8;
/**
 * Fewer rows than this are not worth an insert of their own even on a slow engine: each
 * insert has a fixed cost and makes a part to merge, so smaller blocks would slow the engine
 * further (and one exporter batch is about this size).
 */
export const MIN_TIMED_BLOCK_ROWS = 1_000;

export interface InsertPace {
  /** Records one insert of `rows` rows that held the engine `ms` milliseconds. */
  record(rows: number, ms: number): void;
  /** The rows a block may hold: what fits `targetMs` at the recent pace, within [MIN_TIMED_BLOCK_ROWS, maxRows]. */
  blockRows(): number;
}

/** `targetMs` 0 sizes blocks by `maxRows` alone. */
export function createInsertPace(targetMs: number, maxRows: number): InsertPace {
  const recent: { rows: number; ms: number }[] = [];
  // Asked on every add, changed only by an insert: kept, not recomputed.
  let blockRows = maxRows;
  return {
    record(rows, ms) {
      recent.push({ rows, ms });
      if (recent.length > RECENT_INSERTS) recent.shift();
      const totalMs = recent.reduce((n, insert) => n + insert.ms, 0);
      if (targetMs === 0 || totalMs <= 0) {
        blockRows = maxRows;
        return;
      }
      // Rows over time of the recent inserts together: large inserts weigh as much as they took.
      const rowsPerMs = recent.reduce((n, insert) => n + insert.rows, 0) / totalMs;
      blockRows = Math.min(maxRows, Math.max(MIN_TIMED_BLOCK_ROWS, Math.floor(rowsPerMs * targetMs)));
    },
    blockRows: () => blockRows,
  };
}
