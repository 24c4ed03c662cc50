import { IngestRefusal } from './refusal.ts';

/** The bytes one export holds against the budget, taken as they are read and given back once it is answered. */
export interface BodyLease {
  /** Counts `bytes` more for this export; throws IngestRefusal('overloaded') when the budget cannot hold them. */
  take(bytes: number): void;
  release(): void;
}

/**
 * The request bytes ingest holds at once (INGEST_MAX_INFLIGHT_BYTES), so memory stays within
 * a known budget under any mix of large bodies. An export alone is never refused: a body
 * larger than the budget but within INGEST_MAX_BODY_BYTES still goes through when nothing
 * else is held, instead of being refused forever. Exports of at most 1/64 of the budget
 * (ordinary SDK batches) may also use a reserve of 1/8 above it, so a flood of large bodies
 * holding the budget does not turn them away too.
 */
export function createInflightBytes(maxBytes: number) {
  const smallExport = maxBytes / 64;
  const withReserve = maxBytes + maxBytes / 8;
  let used = 0;
  return {
    lease(): BodyLease {
      let held = 0;
      return {
        take(bytes) {
          const limit = held + bytes <= smallExport ? withReserve : maxBytes;
          if (used > held && used + bytes > limit) {
            throw new IngestRefusal('overloaded', `ingest is holding ${used} bytes of requests, its limit is ${maxBytes}; retry later`);
          }
          used += bytes;
          held += bytes;
        },
        release() {
          used -= held;
          held = 0;
        },
      };
    },
  };
}
export type InflightBytes = ReturnType<typeof createInflightBytes>;
