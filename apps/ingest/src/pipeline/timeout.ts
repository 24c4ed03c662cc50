/** A queue or settings call that cannot reach Redis in this time is refused as unavailable, so the exporter retries. */
export const QUEUE_TIMEOUT_MS = 5_000;

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
