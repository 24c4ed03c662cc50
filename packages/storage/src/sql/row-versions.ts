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

/**
 * `count` consecutive versions, the first returned: for records written together that
 * must still have one version each (the hours of one rollup statement, traces/rollups.ts).
 */
export function nextRowVersions(count: number): number {
  const first = nextRowVersion();
  lastVersion = first + count - 1;
  return first;
}
