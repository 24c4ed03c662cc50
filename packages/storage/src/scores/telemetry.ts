import type { TelemetryScore } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { writeScoreVersions, type ScoreRecord } from './records.ts';

/**
 * The source of scores read from `gen_ai.evaluation.result` events. Not one API clients
 * may send (SCORE_SOURCES), and the scores have no owner key: the telemetry that sent them
 * is their only writer.
 */
export const TELEMETRY_SCORE_SOURCE = 'telemetry';

/**
 * Stores evaluation results as scores on their spans. Each keeps its id across replays
 * (see @aos/domain evaluation-results.ts), so the same event stored twice is one score.
 */
export async function writeTelemetryScores(storage: Storage, projectId: string, scores: readonly TelemetryScore[]): Promise<void> {
  if (scores.length === 0) return;
  const now = new Date().toISOString();
  await writeScoreVersions(storage, scores.map((s) => telemetryScoreRecord(projectId, s, now)));
}

function telemetryScoreRecord(projectId: string, s: TelemetryScore, now: string): ScoreRecord {
  return {
    id: s.id,
    projectId,
    traceId: s.traceId,
    spanId: s.spanId,
    sessionId: null,
    name: s.name,
    dataType: s.value === null ? 'categorical' : 'numeric',
    value: s.value,
    stringValue: s.label,
    comment: s.explanation,
    source: TELEMETRY_SCORE_SOURCE,
    externalId: s.responseId,
    deploymentId: null,
    configId: null,
    ownerKeyId: '',
    evaluatorId: null,
    evaluatorVersion: null,
    createdAt: new Date(s.timeMs).toISOString(),
    updatedAt: now,
  };
}
