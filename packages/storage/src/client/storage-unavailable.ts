/** Storage cannot be reached or cannot take the statement now; the same statement may succeed later. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/**
 * Whether an error means storage could not be reached (a transient fault worth a retry)
 * rather than a bad query: network failures to a server, time-outs, a closed connection,
 * and the embedded engine's data directory refusing writes (read-only, full, no access),
 * which an operator fixes without the data changing.
 */
export function isStorageUnavailable(err: unknown): boolean {
  if (err instanceof StorageUnavailableError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  return /socket hang up|Timeout error|connection is closed|ChdbConnection is closed|Read-only file system|No space left on device|Not enough space|Permission denied/i.test(err.message);
}
