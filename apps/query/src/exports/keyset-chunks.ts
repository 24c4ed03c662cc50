/** One page of a keyset-paginated read: its rows and where the next page starts (null at the end). */
export interface KeysetPage<T, C> {
  rows: T[];
  next: C | null;
}

/** Reads one page of at most `limit` rows after `after` (from the start when undefined). */
export type FetchPage<T, C> = (limit: number, after: C | undefined) => Promise<KeysetPage<T, C>>;

/**
 * Walks a keyset-paginated read one chunk at a time. The next page is fetched only when the
 * consumer asks for it, so a consumer that writes each chunk before pulling the next holds
 * at most one chunk: the engine materializes a whole result before returning it (chDB),
 * so bounded pages are what keep an export's memory flat.
 */
export async function* keysetChunks<T, C>(fetchPage: FetchPage<T, C>, chunkSize: number): AsyncGenerator<T[], void, undefined> {
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunk size must be a positive integer, got ${chunkSize}`);
  let after: C | undefined;
  for (;;) {
    const page = await fetchPage(chunkSize, after);
    if (page.rows.length > chunkSize) {
      throw new RangeError(`a page of ${page.rows.length} rows came back for a limit of ${chunkSize}`);
    }
    if (page.rows.length > 0) yield page.rows;
    if (page.next === null) return;
    after = page.next;
  }
}

/**
 * For each chunk of parents, walks the chunks of its children: e.g. the spans of each page
 * of traces. Memory stays bounded by one parent chunk plus one child chunk.
 */
export async function* nestedChunks<P, T>(
  parents: AsyncIterable<P[]>,
  children: (parents: P[]) => AsyncIterable<T[]>,
): AsyncGenerator<T[], void, undefined> {
  for await (const chunk of parents) yield* children(chunk);
}
