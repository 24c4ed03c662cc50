import type { Logger } from '@aos/log';
import { IngestRefusal } from './refusal.ts';
import { QUEUE_TIMEOUT_MS, withTimeout } from './timeout.ts';

/** Adds a job within the queue timeout; an exporter whose batch is not in Redis is told to retry. */
export async function enqueueOrRefuse(add: () => Promise<unknown>, logger: Logger, context: Record<string, unknown>): Promise<void> {
  try {
    await withTimeout(add(), QUEUE_TIMEOUT_MS);
  } catch (err) {
    logger.error('enqueue failed', { ...context, error: err });
    throw new IngestRefusal('unavailable', 'the ingest queue is unavailable; retry later');
  }
}

/** Decodes a message, turning the decoder's complaint into the exporter's 400 / INVALID_ARGUMENT. */
export function decodeOrRefuse<T>(decode: () => T, isDecodeError: (err: unknown) => boolean): T {
  try {
    return decode();
  } catch (err) {
    if (isDecodeError(err)) throw new IngestRefusal('invalid', (err as Error).message);
    throw err;
  }
}
