let lastVersion = 0;

/**
 * The version of a new row of a versioned (ReplacingMergeTree) record: microsecond-scaled
 * wall time, kept strictly increasing within the process so two writes of one record in
 * the same millisecond apply in order.
 */
export function nextRowVersion(): number {
  lastVersion = Math.max(lastVersion + 1, Date.now() * 1000);
  return lastVersion;
}
