import { isStorageUnavailable, type ExportRecord } from '@aos/storage';
import type { Logger } from '@aos/log';
import type { ExportWriter } from './export-format.ts';

/** How an export ended, as its record keeps it. */
export interface ExportOutcome {
  status: 'completed' | 'failed';
  rows: number;
  bytes: number;
  error?: string;
}

export interface ExportStreamOptions<R> {
  logger: Logger;
  /** The export's record, already written as running. */
  record: Pick<ExportRecord, 'id' | 'kind' | 'startedAt'>;
  /** Records the end of the export (once); its failure is logged, not sent to the client. */
  finish: (outcome: ExportOutcome) => Promise<unknown>;
  /** The rows, chunk by chunk; a chunk is fetched only when the previous one has been handed on. */
  chunks: AsyncIterable<R[]>;
  writer: ExportWriter<R>;
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
export async function exportBody<R>(options: ExportStreamOptions<R>): Promise<ExportBody> {
  const { logger, record, writer } = options;
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
  const failureText = (err: unknown) =>
    isStorageUnavailable(err) ? 'storage unavailable' : `internal error (request ${options.requestId})`;

  let first: IteratorResult<R[], void> | undefined;
  try {
    first = await chunks.next();
  } catch (err) {
    await finish('failed', failureText(err));
    throw err;
  }

  const encoder = new TextEncoder();
  let head = writer.head;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const result = first ?? (await chunks.next());
          first = undefined;
          if (cancelled) return;
          let text = head;
          head = '';
          if (!result.done) {
            rows += result.value.length;
            text += writer.rows(result.value);
          }
          if (text.length > 0) {
            const encoded = encoder.encode(text);
            bytes += encoded.byteLength;
            controller.enqueue(encoded);
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
      'content-type': writer.contentType,
      'content-disposition': `attachment; filename="${record.kind}-${stamp}.${writer.extension}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-export-id': record.id,
    },
  };
}
