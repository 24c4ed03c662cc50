let lastVersion = 0;

/**
 * A version for a ReplacingMergeTree row: microseconds since the epoch, strictly
 * increasing within the process, so two changes within one millisecond apply in order.
 */
export function nextVersion(): number {
  lastVersion = Math.max(lastVersion + 1, Date.now() * 1000);
  return lastVersion;
}
