/** A queue or settings call that cannot reach Redis in this time is refused as unavailable, so the exporter retries. */
export const QUEUE_TIMEOUT_MS = 5_000;

/** `promise`, or a rejection with `late()` once `ms` have passed (the promise itself runs on). */
export function withTimeout<T>(promise: Promise<T>, ms: number, late: () => Error = () => new Error(`timed out after ${ms} ms`)): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(late()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
