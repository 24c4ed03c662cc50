import { createHash } from 'node:crypto';
import type { Logger } from '@aos/log';
import { insertBlockOf, markJobsRowsStored, readInsertBlock, recordInsertBlocks, type Redis } from '@aos/queue';
import { rowsRefusal, spanRowBinaryRowCount, type SpanRowsFormat } from '@aos/storage';

/** One job's rows in an insert; `jobId` when they wait under a rows key (jobs queued by older versions carry them in their JSON). */
export interface BlockItem {
  jobId?: string;
  chunk: Uint8Array;
  /** The chunk's format; a block's items all have one (the batcher forms blocks per format). */
  format: SpanRowsFormat;
}

export interface SpanInsertBlocksOptions {
  /** This thread's own connection (the one that owns the storage connection). */
  redis: Redis;
  prefix: string;
  logger: Logger;
  /** Sends one insert of encoded span rows, all in `format`; `token` is its insert_deduplication_token. */
  insert(chunks: readonly Uint8Array[], format: SpanRowsFormat, rows: number, token: string | undefined): Promise<void>;
}

/** The insert_deduplication_token of a block: a digest of its job ids, so a re-formed block carries the same one. */
export function blockToken(block: string): string {
  return createHash('sha256').update(block).digest('hex');
}

/**
 * Span inserts the engine recognises when they are sent again. The engine can commit an
 * insert and the process die before its jobs are marked stored in Redis (two systems, no
 * shared transaction); their next attempts find the rows and no mark. So each insert is
 * recorded on its jobs (the block, queue/insert-blocks.ts) before it is sent with a token
 * derived from it, and a job that finds its block recorded re-forms exactly that insert,
 * same rows in the same order, with the same token: the engine stores what it has not
 * (measured on chDB 26.7: a token only matches rows formed the same way, so a part of the
 * block would be stored again). Once stored, the whole block is marked in one transaction.
 * A block's jobs share one row format, so the job that replays it knows the block's format
 * from its own: its rows are sent again in the bytes and format they went in.
 */
export function createSpanInsertBlocks(opts: SpanInsertBlocksOptions) {
  const markStored = async (jobIds: readonly string[]) => {
    // Left undone, each job marks its own rows as it completes (job.ts).
    await markJobsRowsStored(opts.redis, opts.prefix, jobIds).catch((err: unknown) =>
      opts.logger.warn('marking an insert block stored failed; its jobs mark themselves', { jobs: jobIds.length, error: err }),
    );
  };
  const voidBlock = (jobIds: readonly string[]) => recordInsertBlocks(opts.redis, opts.prefix, jobIds.map((id) => [id, id] as const));
  // Replays of one block on this thread, one after another: the jobs of a crashed block are
  // taken over together, and the first replay marks the block, so the others send nothing.
  const replays = new Map<string, Promise<unknown>>();

  return {
    /** Sends a block the batcher formed: recorded on its jobs first, then inserted with its token. */
    async insert(items: readonly BlockItem[], rows: number): Promise<void> {
      const chunks = items.map((item) => item.chunk);
      const format = formatOf(items);
      // A job queued by an older version cannot be re-formed from Redis: its block goes as before, untokened.
      if (items.some((item) => item.jobId === undefined)) return opts.insert(chunks, format, rows, undefined);
      const jobIds = items.map((item) => item.jobId!);
      const block = insertBlockOf(jobIds);
      await recordInsertBlocks(opts.redis, opts.prefix, jobIds.map((id) => [id, block] as const));
      try {
        await opts.insert(chunks, format, rows, blockToken(block));
      } catch (err) {
        // Refused rows: the engine stored nothing, and the batcher sends the jobs again one by
        // one. Each is recorded as a block of its own first, so no attempt re-forms this one
        // after some of them completed; if that fails, Redis's error is thrown instead and
        // the batcher sends none of them alone.
        if (jobIds.length > 1 && rowsRefusal(err) !== null) await voidBlock(jobIds);
        throw err;
      }
      await markStored(jobIds);
    },

    /**
     * A job whose rows (in `format`) an earlier attempt sent in `block`: re-forms and sends
     * that block again. True when the job's rows are stored now; false when the block is void (the
     * engine refused it, or a later attempt recorded another) and the job's rows go anew.
     */
    replay(jobId: string, block: string, format: SpanRowsFormat): Promise<boolean> {
      const run = (replays.get(block) ?? Promise.resolve()).then(() => replayOnce(jobId, block, format));
      const settled = run.catch(() => undefined);
      replays.set(block, settled);
      void settled.then(() => replays.get(block) === settled && replays.delete(block));
      return run;
    },
  };

  async function replayOnce(jobId: string, block: string, format: SpanRowsFormat): Promise<boolean> {
    const members = await readInsertBlock(opts.redis, opts.prefix, block);
    const self = members.find((m) => m.jobId === jobId);
    if (self?.stored) return true;
    if (self?.block !== block) return false;
    // A block is marked stored whole, and its jobs complete only after: one of them marked
    // or gone means the engine has the block.
    if (members.some((m) => !m.exists || (m.stored && m.block === block))) return true;
    // Every job of the block, unless a rows key was lost (then the rest is sent: nothing can tell whether the engine has them).
    const sent = members.filter((m) => m.block === block && m.rows !== null);
    const chunks = sent.map((m) => m.rows!);
    opts.logger.warn('span insert block sent again (an attempt before stored it or not); the engine stores what it does not have', { jobs: sent.length });
    try {
      await opts.insert(chunks, format, chunks.reduce((n, chunk) => n + rowCount(chunk, format), 0), blockToken(block));
    } catch (err) {
      if (rowsRefusal(err) === null) throw err;
      await voidBlock(sent.map((m) => m.jobId));
      return false;
    }
    await markStored(sent.map((m) => m.jobId));
    return true;
  }
}
export type SpanInsertBlocks = ReturnType<typeof createSpanInsertBlocks>;

/** The one format of a block's items. */
function formatOf(items: readonly BlockItem[]): SpanRowsFormat {
  const format = items[0]!.format;
  if (items.some((item) => item.format !== format)) throw new Error('an insert block mixes row formats');
  return format;
}

/** Rows in a chunk: RowBinary's by walking its layout; JSONCompactEachRow's one per line (a newline inside a value is escaped). */
function rowCount(chunk: Uint8Array, format: SpanRowsFormat): number {
  if (format === 'RowBinary') return spanRowBinaryRowCount(chunk);
  let n = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}
