import {
  evaluationItemKey,
  getBackfill,
  getBackfillProgress,
  getEvaluator,
  judgedItemKeys,
  listEvaluationItems,
  recordBackfillItems,
  writeBackfillProgress,
  type BackfillProgress,
} from '@aos/storage';
import { definitionOf, judgeItem, type EvaluatorRuntime } from './run.ts';
import { itemSelection } from './selection.ts';

/**
 * One chunk of a backfill. Each chunk is its own queue job, numbered; the progress row
 * holds the number of the next chunk and the key of the last item of the previous one, so:
 * - a job whose chunk was already done (a rerun after a crash between recording progress
 *   and finishing the job) does nothing but make sure the next job exists;
 * - a chunk cut short by a crash is rerun from the same cursor, skipping the items already
 *   recorded as judged, so an item is judged once per backfill.
 * Cancellation is looked at before each group of items.
 */
export type ChunkResult = { next: number | null };

/** Thrown when the writer stops in the middle of a chunk: the job fails and is retried, from the items not yet judged. */
export class BackfillInterrupted extends Error {
  override name = 'BackfillInterrupted';
}

interface Cursor {
  chunk: number;
  afterKey: string | null;
}

function readCursor(progress: BackfillProgress | null): Cursor {
  if (!progress?.cursor) return { chunk: 0, afterKey: null };
  return JSON.parse(progress.cursor) as Cursor;
}

export async function runBackfillChunk(
  runtime: EvaluatorRuntime,
  projectId: string,
  backfillId: string,
  chunk: number,
  chunkSize: number,
  shouldStop: () => boolean = () => false,
): Promise<ChunkResult> {
  const { storage } = runtime;
  const backfill = await getBackfill(storage, projectId, backfillId);
  if (!backfill) return { next: null };
  const progress = await getBackfillProgress(storage, projectId, backfillId);
  if (progress && progress.outcome !== 'running') return { next: null };
  const cursor = readCursor(progress);
  if (chunk < cursor.chunk) return { next: cursor.chunk };
  const startedMs = progress?.startedMs ?? Date.now();
  const finish = async (outcome: 'completed' | 'failed' | 'cancelled', error = '') => {
    await writeBackfillProgress(storage, projectId, backfillId, { cursor: JSON.stringify(cursor), outcome, error, startedMs, finishedMs: Date.now() });
    return { next: null };
  };
  if (backfill.cancelledAt) return finish('cancelled');
  if (!progress) await writeBackfillProgress(storage, projectId, backfillId, { cursor: '', outcome: 'running', error: '', startedMs, finishedMs: null });

  const evaluator = await getEvaluator(storage, projectId, backfill.evaluatorId);
  if (!evaluator) return finish('failed', 'the evaluator was deleted');
  const selection = itemSelection(evaluator, { startMs: Date.parse(backfill.startTime), endMs: Date.parse(backfill.endTime) });
  const page = await listEvaluationItems(storage, selection, { limit: chunkSize, ...(cursor.afterKey !== null ? { afterKey: cursor.afterKey } : {}) });
  const done = await judgedItemKeys(storage, projectId, backfillId, page.items.map(evaluationItemKey));
  const todo = page.items.filter((item) => !done.has(evaluationItemKey(item)));
  const group = definitionOf(evaluator).concurrency;
  for (let i = 0; i < todo.length; i += group) {
    if (shouldStop()) throw new BackfillInterrupted(`backfill ${backfillId} chunk ${chunk} interrupted: the writer is stopping`);
    const current = await getBackfill(storage, projectId, backfillId);
    if (!current || current.cancelledAt) return finish('cancelled');
    await Promise.all(
      todo.slice(i, i + group).map(async (item) => {
        const outcome = await judgeItem(runtime, evaluator, item, 'backfill', backfillId);
        // Recorded as soon as judged: a crash after this line never judges the item again.
        await recordBackfillItems(storage, projectId, backfillId, [
          {
            itemKey: evaluationItemKey(item),
            failed: outcome.status === 'failed',
            error: outcome.status === 'failed' ? outcome.reason : '',
            scoresWritten: outcome.status === 'scored' ? outcome.scores.length : 0,
          },
        ]);
      }),
    );
  }
  cursor.chunk += 1;
  cursor.afterKey = page.lastKey ?? cursor.afterKey;
  if (!page.more) return finish('completed');
  await writeBackfillProgress(storage, projectId, backfillId, { cursor: JSON.stringify(cursor), outcome: 'running', error: '', startedMs, finishedMs: null });
  return { next: cursor.chunk };
}

/** Marks a backfill failed (its chunk job failed for good), keeping its cursor and start time. */
export async function failBackfill(runtime: EvaluatorRuntime, projectId: string, backfillId: string, error: string): Promise<void> {
  const progress = await getBackfillProgress(runtime.storage, projectId, backfillId);
  if (progress && progress.outcome !== 'running') return;
  await writeBackfillProgress(runtime.storage, projectId, backfillId, {
    cursor: progress?.cursor ?? '',
    outcome: 'failed',
    error,
    startedMs: progress?.startedMs ?? Date.now(),
    finishedMs: Date.now(),
  });
}
