import { AsyncLocalStorage } from 'node:async_hooks';
import { budgetExceeded, isStorageUnavailable, type ExportRecord } from '@aos/storage';
import type { Logger } from '@aos/log';
import type { ExportEncoding, ExportWriter } from './export-format.ts';

/** How an export ended, as its record keeps it. */
export interface ExportOutcome {
  status: 'completed' | 'failed';
  rows: number;
  bytes: number;
  error?: string;
}

/** Rows already in the export's format, and how many they are. */
export interface EncodedChunk {
  rows: number;
  data: Uint8Array;
}

/** Encodes chunks of row objects with a writer, one encoded chunk per chunk. */
export async function* encodeRows<R>(chunks: AsyncIterable<R[]>, writer: ExportWriter<R>): AsyncGenerator<EncodedChunk, void, undefined> {
  const encoder = new TextEncoder();
  for await (const rows of chunks) yield { rows: rows.length, data: encoder.encode(writer.rows(rows)) };
}

export interface ExportStreamOptions {
  logger: Logger;
  /** The export's record, already written as running. */
  record: Pick<ExportRecord, 'id' | 'kind' | 'startedAt'>;
  /** Records the end of the export (once); its failure is logged, not sent to the client. */
  finish: (outcome: ExportOutcome) => Promise<unknown>;
  /** The rows, chunk by chunk; a chunk is fetched only when the previous one has been handed on. */
  chunks: AsyncIterable<EncodedChunk>;
  encoding: ExportEncoding;
  requestId: string;
}

export interface ExportBody {
  body: ReadableStream<Uint8Array>;
  headers: Record<string, string>;
}

/**
 * Streams an export and records how it ended. The first chunk is read before anything is
 * sent, so a filter that cannot be run still gets a proper error status; after that, the
 * status is 200 and a failure can only cut the body short (the connection is aborted, so
 * the client sees an incomplete transfer, not a short file that looks whole).
 *
 * The stream is pull-based with no read-ahead: the next chunk is queried only once the
 * connection has taken the previous one, so memory stays at one chunk however large the
 * export. Its record is written as completed before the body ends, so a client that has
 * read the whole body finds it completed.
 */
export async function exportBody(options: ExportStreamOptions): Promise<ExportBody> {
  const { logger, record, encoding } = options;
  const log = logger.child({ exportId: record.id, requestId: options.requestId });
  const chunks = options.chunks[Symbol.asyncIterator]();
  let rows = 0;
  let bytes = 0;
  let finished = false;
  let cancelled = false;

  const finish = async (status: 'completed' | 'failed', error?: string) => {
    if (finished) return;
    finished = true;
    try {
      await options.finish({ status, rows, bytes, ...(error !== undefined ? { error } : {}) });
    } catch (err) {
      // The data went out (or not) regardless; the record stays `running`.
      log.warn('could not record the end of an export', { status, error: err });
    }
  };
  const failureText = (err: unknown) => {
    const exceeded = budgetExceeded(err);
    if (exceeded) return exceeded === 'timeout' ? 'a slice ran past its time budget' : 'a slice needed more than its read budget';
    return isStorageUnavailable(err) ? 'storage unavailable' : `internal error (request ${options.requestId})`;
  };
  // The body is pulled by the connection, outside this request's async context: each pull
  // runs in it again, so the slices' statements keep the request's export budget and abort signal.
  const inRequest = AsyncLocalStorage.snapshot();

  let first: IteratorResult<EncodedChunk, void> | undefined;
  try {
    first = await chunks.next();
  } catch (err) {
    await finish('failed', failureText(err));
    throw err;
  }

  let head: Uint8Array | undefined = new TextEncoder().encode(encoding.head);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const result = first ?? (await inRequest(() => chunks.next()));
          first = undefined;
          if (cancelled) return;
          // The header goes out with the first rows, in one piece.
          const parts = [head, result.done ? undefined : result.value.data].filter((p): p is Uint8Array => p !== undefined && p.byteLength > 0);
          head = undefined;
          if (!result.done) rows += result.value.rows;
          const piece = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
          if (piece.byteLength > 0) {
            bytes += piece.byteLength;
            controller.enqueue(piece);
          }
          if (result.done) {
            await finish('completed');
            controller.close();
          }
        } catch (err) {
          if (cancelled) return;
          log.error('export failed while streaming', { rows, bytes, error: err });
          await finish('failed', failureText(err));
          controller.error(err);
        }
      },
      async cancel() {
        cancelled = true;
        void chunks.return?.().catch(() => {});
        await finish('failed', 'the client closed the connection before the export ended');
      },
    },
    // No read-ahead: pull runs only when the reader asks for more.
    { highWaterMark: 0 },
  );

  const stamp = record.startedAt.replaceAll(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return {
    body,
    headers: {
      'content-type': encoding.contentType,
      'content-disposition': `attachment; filename="${record.kind}-${stamp}.${encoding.extension}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-export-id': record.id,
    },
  };
}
