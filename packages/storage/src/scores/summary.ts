import type { Storage } from '../client/client.ts';
import { targetCondition, type ScoreTarget } from './records.ts';
import { conditionsNeedTexts } from '../traces/aggregate.ts';
import { traceFilterSql, type TraceFilter } from '../traces/filter.ts';
import { rollupsToRead, traceRowsSql } from '../traces/rows.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import type { RolledUpHour } from '../traces/rollups.ts';

export interface ScoreNameSummary {
  name: string;
  count: number;
  /** Mean of numeric and boolean values (true = 1); null when the name has none. */
  mean: number | null;
  min: number | null;
  max: number | null;
  /** Count per label of categorical scores. */
  labels: Record<string, number>;
}

/** What to summarize: one trace or session, or the traces matching a trace filter. */
export type ScoreSummaryScope = ScoreTarget | { traceFilter: TraceFilter };

interface GroupRow {
  name: string;
  string_value: string | null;
  n: string;
  value_count: string;
  value_sum: number;
  value_min: number | null;
  value_max: number | null;
}

/**
 * The summary statement: scores grouped by name and label, of one target or of the traces a
 * filter matches (read from the rolled-up hours given and from spans for the others).
 */
export function scoreSummarySql(projectId: string, scope: ScoreSummaryScope, rollups: readonly RolledUpHour[]): Statement {
  const params: Record<string, unknown> = { projectId };
  let scopeCondition: string;
  if ('traceFilter' in scope) {
    const filter = traceFilterSql(scope.traceFilter);
    // traceRowsSql adds the parameters of the rollups it reads to filter.params.
    const traces = traceRowsSql(scope.traceFilter, filter, rollups, { texts: conditionsNeedTexts(filter.traceConditions) });
    Object.assign(params, filter.params);
    scopeCondition = `trace_id IN (SELECT trace_id FROM (${traces}) WHERE ${filter.traceConditions.join(' AND ')})`;
  } else {
    scopeCondition = targetCondition(scope, params);
  }
  // Grouped by label too, so label counts come from the engine, not from every row.
  const query = `
      SELECT name, string_value, count() AS n,
        countIf(value IS NOT NULL) AS value_count, sumIf(value, value IS NOT NULL) AS value_sum,
        minIf(value, value IS NOT NULL) AS value_min, maxIf(value, value IS NOT NULL) AS value_max
      FROM scores FINAL
      WHERE project_id = {projectId:String} AND ${scopeCondition}
      GROUP BY name, string_value
      ORDER BY name`;
  return { query, params };
}

/** Per score name: count, mean, min and max of values, and label counts. */
export async function summarizeScores(storage: Storage, projectId: string, scope: ScoreSummaryScope): Promise<ScoreNameSummary[]> {
  const rollups = 'traceFilter' in scope ? await rollupsToRead(storage, scope.traceFilter) : [];
  const statement = scoreSummarySql(projectId, scope, rollups);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'scores.summary'),
  });
  const byName = new Map<string, ScoreNameSummary & { valueCount: number; valueSum: number }>();
  for (const row of await result.json<GroupRow>()) {
    const entry = byName.get(row.name) ?? { name: row.name, count: 0, mean: null, min: null, max: null, labels: {}, valueCount: 0, valueSum: 0 };
    entry.count += Number(row.n);
    const valueCount = Number(row.value_count);
    if (valueCount > 0) {
      entry.valueCount += valueCount;
      entry.valueSum += row.value_sum;
      entry.min = entry.min === null ? row.value_min : Math.min(entry.min, row.value_min ?? entry.min);
      entry.max = entry.max === null ? row.value_max : Math.max(entry.max, row.value_max ?? entry.max);
    }
    if (row.string_value !== null) entry.labels[row.string_value] = (entry.labels[row.string_value] ?? 0) + Number(row.n);
    byName.set(row.name, entry);
  }
  return [...byName.values()].map(({ valueCount, valueSum, ...summary }) => ({
    ...summary,
    mean: valueCount > 0 ? valueSum / valueCount : null,
  }));
}
