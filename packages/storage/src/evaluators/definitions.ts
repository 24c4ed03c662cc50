import { randomBytes } from 'node:crypto';
import type { Storage } from '../client/client.ts';
import { nextRowVersion } from '../sql/row-versions.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { pageAfterId } from '../sql/page-after-id.ts';

/**
 * Evaluators as versioned rows. Storage keeps the definition as opaque JSON (its shape and
 * rules live in @aos/evaluators); what it knows is the id, the project, the version that
 * every change increments, whether it runs on new traces, and the model API key, which is
 * selected only by `getEvaluatorApiKey` so no read made for the API can carry it.
 */
export interface StoredEvaluator {
  id: string;
  projectId: string;
  name: string;
  version: number;
  definition: Record<string, unknown>;
  autoRun: boolean;
  /** Whether a model API key is stored, and its last four characters. */
  apiKeySet: boolean;
  apiKeyHint: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
}

export interface EvaluatorWrite {
  name: string;
  definition: Record<string, unknown>;
  autoRun: boolean;
}

const SELECT_COLUMNS = `
    id, project_id, name, version, definition, auto_run, created_by,
    model_api_key != '' AS api_key_set,
    if(lengthUTF8(model_api_key) >= 12, rightUTF8(model_api_key, 4), '') AS api_key_hint,
    toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
    toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms`;

interface EvaluatorRow {
  id: string;
  project_id: string;
  name: string;
  version: number;
  definition: string;
  auto_run: number;
  created_by: string;
  api_key_set: number;
  api_key_hint: string;
  created_ms: string;
  updated_ms: string;
}

/** Creates version 1 of an evaluator. */
export async function createEvaluator(
  storage: Storage,
  input: EvaluatorWrite & { projectId: string; apiKey: string | null; createdBy: string },
): Promise<StoredEvaluator> {
  const now = Date.now();
  const id = `ev_${now.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
  await writeRow(storage, { id, projectId: input.projectId, version: 1, createdMs: now, createdBy: input.createdBy, apiKey: input.apiKey ?? '' }, input, now);
  return (await getEvaluator(storage, input.projectId, id))!;
}

/**
 * Writes the next version with the given changes; `apiKey` undefined keeps the stored key,
 * null removes it. Returns null when the project has no such evaluator.
 */
export async function updateEvaluator(
  storage: Storage,
  projectId: string,
  id: string,
  change: (current: StoredEvaluator) => EvaluatorWrite,
  apiKey: string | null | undefined,
): Promise<StoredEvaluator | null> {
  const current = await getEvaluator(storage, projectId, id);
  if (!current) return null;
  const keepKey = apiKey === undefined ? ((await getEvaluatorApiKey(storage, projectId, id)) ?? '') : (apiKey ?? '');
  const now = Date.now();
  await writeRow(
    storage,
    { id, projectId, version: current.version + 1, createdMs: Date.parse(current.createdAt), createdBy: current.createdBy, apiKey: keepKey },
    change(current),
    now,
  );
  return getEvaluator(storage, projectId, id);
}

/** Removes an evaluator; its scores stay. Returns false when there was none. */
export async function deleteEvaluator(storage: Storage, projectId: string, id: string): Promise<boolean> {
  const current = await getEvaluator(storage, projectId, id);
  if (!current) return false;
  const now = Date.now();
  await writeRow(
    storage,
    { id, projectId, version: current.version, createdMs: Date.parse(current.createdAt), createdBy: current.createdBy, apiKey: '' },
    current,
    now,
    true,
  );
  return true;
}

export async function getEvaluator(storage: Storage, projectId: string, id: string): Promise<StoredEvaluator | null> {
  const [found] = await selectEvaluators(storage, evaluatorsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
  return found ?? null;
}

/** The statement of a page of listEvaluators: one row more than the page, to tell if more follow. */
export function evaluatorListSql(projectId: string, page: { limit: number; afterId?: string }): Statement {
  const { conditions, params } = pageAfterId(projectId, page);
  return evaluatorsSql(conditions.join(' AND '), params, 'ORDER BY id LIMIT {limit:UInt32}');
}

/** A project's evaluators in id (creation) order, keyset-paginated. */
export async function listEvaluators(
  storage: Storage,
  projectId: string,
  page: { limit: number; afterId?: string },
): Promise<{ evaluators: StoredEvaluator[]; nextAfterId: string | null }> {
  const found = await selectEvaluators(storage, evaluatorListSql(projectId, page));
  const evaluators = found.slice(0, page.limit);
  const last = evaluators.at(-1);
  return { evaluators, nextAfterId: found.length > page.limit && last ? last.id : null };
}

/** The evaluators of these projects that run on new traces. */
export async function listAutoRunEvaluators(storage: Storage, projectIds: readonly string[]): Promise<StoredEvaluator[]> {
  if (projectIds.length === 0) return [];
  return selectEvaluators(storage, evaluatorsSql('project_id IN {projectIds:Array(String)} AND auto_run = 1', { projectIds }, 'ORDER BY project_id, id'));
}

/** The stored model API key (never part of an API answer), or null. */
export async function getEvaluatorApiKey(storage: Storage, projectId: string, id: string): Promise<string | null> {
  const result = await storage.client.query({
    query: 'SELECT model_api_key FROM evaluators FINAL WHERE project_id = {projectId:String} AND id = {id:String}',
    query_params: { projectId, id },
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.api-key'),
  });
  const [row] = await result.json<{ model_api_key: string }>();
  return row?.model_api_key ? row.model_api_key : null;
}

/** The statement selecting the evaluators a condition picks, with the tail (order, limit) given. */
export function evaluatorsSql(where: string, params: Record<string, unknown>, tail = ''): Statement {
  return { query: `SELECT ${SELECT_COLUMNS} FROM evaluators FINAL WHERE ${where} ${tail}`, params };
}

async function selectEvaluators(storage: Storage, statement: Statement): Promise<StoredEvaluator[]> {
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.read'),
  });
  return (await result.json<EvaluatorRow>()).map((row) => ({
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    version: Number(row.version),
    definition: JSON.parse(row.definition) as Record<string, unknown>,
    autoRun: row.auto_run === 1,
    apiKeySet: Boolean(row.api_key_set),
    apiKeyHint: row.api_key_hint || null,
    createdAt: new Date(Number(row.created_ms)).toISOString(),
    updatedAt: new Date(Number(row.updated_ms)).toISOString(),
    createdBy: row.created_by,
  }));
}

async function writeRow(
  storage: Storage,
  fixed: { id: string; projectId: string; version: number; createdMs: number; createdBy: string; apiKey: string },
  write: EvaluatorWrite,
  now: number,
  deleted = false,
): Promise<void> {
  await storage.client.insert({
    table: 'evaluators',
    values: [
      {
        id: fixed.id,
        project_id: fixed.projectId,
        name: write.name,
        version: fixed.version,
        definition: JSON.stringify(write.definition),
        model_api_key: fixed.apiKey,
        auto_run: write.autoRun ? 1 : 0,
        created_at: msToDateTimeParam(fixed.createdMs),
        updated_at: msToDateTimeParam(now),
        created_by: fixed.createdBy,
        row_version: nextRowVersion(),
        is_deleted: deleted ? 1 : 0,
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'evaluators.write'),
  });
}
