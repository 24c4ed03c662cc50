import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

/** One evaluator's scores in one time bucket (by judgement time). */
export interface EvaluatorStatsBucket {
  start: string;
  count: number;
  /** Mean of numeric and boolean scores (true = 1); null when the bucket has only labels or nothing. */
  mean: number | null;
  labels: Record<string, number>;
}

export interface EvaluatorStats {
  evaluatorId: string;
  buckets: EvaluatorStatsBucket[];
}

export interface EvaluatorStatsRequest {
  projectId: string;
  startMs: number;
  endMs: number;
  stepSeconds: number;
  evaluatorId?: string;
}

/** The statement of evaluatorScoreStats: evaluator scores grouped by evaluator, bucket and label. */
export function evaluatorScoreStatsSql(request: EvaluatorStatsRequest): Statement {
  const params: Record<string, unknown> = {
    projectId: request.projectId,
    start: msToDateTimeParam(request.startMs),
    end: msToDateTimeParam(request.endMs),
    step: request.stepSeconds,
  };
  const conditions = [
    'project_id = {projectId:String}',
    "source = 'eval'",
    "evaluator_id != ''",
    'updated_at >= {start:DateTime64(3)}',
    'updated_at < {end:DateTime64(3)}',
  ];
  if (request.evaluatorId !== undefined) {
    conditions.push('evaluator_id = {evaluatorId:String}');
    params.evaluatorId = request.evaluatorId;
  }
  const query = `
      SELECT evaluator_id,
        toString(toUnixTimestamp(toStartOfInterval(updated_at, toIntervalSecond({step:UInt32})))) AS bucket_s,
        ifNull(string_value, '') AS label, count() AS n, sum(ifNull(value, 0)) AS value_sum, countIf(value IS NOT NULL) AS value_n
      FROM scores FINAL
      WHERE ${conditions.join(' AND ')}
      GROUP BY evaluator_id, bucket_s, label
      ORDER BY evaluator_id, bucket_s`;
  return { query, params };
}

/**
 * Per evaluator and time bucket: how many scores it wrote, their mean and their label
 * counts. Only buckets with scores are returned; the caller fills the empty ones.
 */
export async function evaluatorScoreStats(storage: Storage, request: EvaluatorStatsRequest): Promise<EvaluatorStats[]> {
  const statement = evaluatorScoreStatsSql(request);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.score-stats'),
  });
  const rows = await result.json<{ evaluator_id: string; bucket_s: string; label: string; n: string; value_sum: number; value_n: string }>();
  const byEvaluator = new Map<string, Map<string, { count: number; sum: number; valued: number; labels: Record<string, number> }>>();
  for (const row of rows) {
    const buckets = byEvaluator.get(row.evaluator_id) ?? new Map();
    byEvaluator.set(row.evaluator_id, buckets);
    const bucket = buckets.get(row.bucket_s) ?? { count: 0, sum: 0, valued: 0, labels: {} };
    buckets.set(row.bucket_s, bucket);
    bucket.count += Number(row.n);
    bucket.sum += row.value_sum;
    bucket.valued += Number(row.value_n);
    if (row.label !== '') bucket.labels[row.label] = (bucket.labels[row.label] ?? 0) + Number(row.n);
  }
  return [...byEvaluator].map(([evaluatorId, buckets]) => ({
    evaluatorId,
    buckets: [...buckets].map(([seconds, b]) => ({
      start: new Date(Number(seconds) * 1000).toISOString(),
      count: b.count,
      mean: b.valued > 0 ? b.sum / b.valued : null,
      labels: b.labels,
    })),
  }));
}
