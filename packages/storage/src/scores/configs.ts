import { randomBytes } from 'node:crypto';
import type { Storage } from '../client/client.ts';
import { keyedSerializer } from '../sql/keyed-serializer.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';
import { ScoreConfigError, throwIfInvalidConfig, type ScoreConfig, type ScoreDataType } from './config-rules.ts';

export { SCORE_DATA_TYPES, ScoreConfigError, checkScoreAgainstConfig } from './config-rules.ts';
export type { ScoreConfig, ScoreDataType } from './config-rules.ts';

/** Creates an active config; throws ScoreConfigError when invalid or when its name is taken by an active config. */
export async function createScoreConfig(
  storage: Storage,
  input: {
    projectId: string;
    name: string;
    dataType: ScoreDataType;
    min?: number | null;
    max?: number | null;
    categories?: string[] | null;
    description?: string;
    createdBy: string;
  },
): Promise<ScoreConfig> {
  const now = Date.now();
  const config: ScoreConfig = {
    id: newConfigId(now),
    projectId: input.projectId,
    name: input.name.trim(),
    dataType: input.dataType,
    min: input.min ?? null,
    max: input.max ?? null,
    categories: input.categories ? [...input.categories] : null,
    description: input.description ?? '',
    archived: false,
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
    createdBy: input.createdBy,
  };
  throwIfInvalidConfig(config);
  return serializedPerProject(config.projectId, async () => {
    await ensureNameFree(storage, config);
    await writeVersion(storage, config, now);
    return config;
  });
}

/**
 * Changes description, bounds or categories, or (un)archives. Name and data type never
 * change: scores already stored under the name were checked against that type. Returns
 * null when the project has no config with this id; throws ScoreConfigError like create.
 */
export async function updateScoreConfig(
  storage: Storage,
  projectId: string,
  id: string,
  patch: { description?: string; min?: number | null; max?: number | null; categories?: string[]; archived?: boolean },
): Promise<ScoreConfig | null> {
  return serializedPerProject(projectId, async () => {
    const [current] = await selectConfigs(storage, scoreConfigsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
    if (!current) return null;
    const next: ScoreConfig = { ...current.config };
    if (patch.description !== undefined) next.description = patch.description;
    if (patch.min !== undefined) next.min = patch.min;
    if (patch.max !== undefined) next.max = patch.max;
    if (patch.categories !== undefined) next.categories = [...patch.categories];
    if (patch.archived !== undefined) next.archived = patch.archived;
    if (JSON.stringify(next) === JSON.stringify(current.config)) return current.config;
    throwIfInvalidConfig(next);
    if (current.config.archived && !next.archived) await ensureNameFree(storage, next);
    const now = Date.now();
    next.updatedAt = new Date(now).toISOString();
    // A strictly newer version, even for two changes within one millisecond.
    await writeVersion(storage, next, Math.max(now, current.version + 1));
    return next;
  });
}

/** One config of the project, archived or not, or null. */
export async function getScoreConfig(storage: Storage, projectId: string, id: string): Promise<ScoreConfig | null> {
  const [found] = await selectConfigs(storage, scoreConfigsSql('project_id = {projectId:String} AND id = {id:String}', { projectId, id }));
  return found ? found.config : null;
}

/** The statement of a page of listScoreConfigs: one row more than the page, to tell if more follow. */
export function scoreConfigListSql(projectId: string, page: { includeArchived: boolean; limit: number; afterId?: string }): Statement {
  const conditions = ['project_id = {projectId:String}'];
  const params: Record<string, unknown> = { projectId, limit: page.limit + 1 };
  if (!page.includeArchived) conditions.push('archived = 0');
  if (page.afterId !== undefined) {
    conditions.push('id > {afterId:String}');
    params.afterId = page.afterId;
  }
  return scoreConfigsSql(conditions.join(' AND '), params, 'ORDER BY id LIMIT {limit:UInt32}');
}

/** A page of a project's configs in id order (ids start with their creation time, so that is creation order). */
export async function listScoreConfigs(
  storage: Storage,
  projectId: string,
  page: { includeArchived: boolean; limit: number; afterId?: string },
): Promise<{ configs: ScoreConfig[]; nextAfterId: string | null }> {
  const found = await selectConfigs(storage, scoreConfigListSql(projectId, page));
  const configs = found.slice(0, page.limit).map((f) => f.config);
  const last = configs.at(-1);
  return { configs, nextAfterId: found.length > page.limit && last ? last.id : null };
}

/**
 * The active config of each of these names, for validating scores. Should two active
 * configs share a name (see `ensureNameFree`), the older one wins, so the answer is stable.
 */
export async function findActiveScoreConfigs(storage: Storage, projectId: string, names: readonly string[]): Promise<Map<string, ScoreConfig>> {
  const byName = new Map<string, ScoreConfig>();
  if (names.length === 0) return byName;
  const found = await selectConfigs(
    storage,
    scoreConfigsSql(
      'project_id = {projectId:String} AND archived = 0 AND has({names:Array(String)}, name)',
      { projectId, names: [...new Set(names)] },
      'ORDER BY created_at, id',
    ),
  );
  for (const { config } of found) if (!byName.has(config.name)) byName.set(config.name, config);
  return byName;
}

/**
 * Of these names, those whose configs are all archived: scores of these names are refused,
 * as their config takes no new scores. A name with an active config is not among them.
 */
export async function findArchivedScoreConfigNames(storage: Storage, projectId: string, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const result = await storage.client.query({
    query: `
      SELECT name FROM score_configs FINAL
      WHERE project_id = {projectId:String} AND has({names:Array(String)}, name)
      GROUP BY name
      HAVING min(archived) = 1`,
    query_params: { projectId, names: [...new Set(names)] },
    format: 'JSONEachRow',
    ...named(storage, 'scores.configs.archived-names'),
  });
  return new Set((await result.json<{ name: string }>()).map((r) => r.name));
}

/**
 * Refuses a second active config of one name. Checked, then written: two processes
 * creating the same name at the same moment can both pass (ClickHouse has no unique
 * constraint); within one process `serializedPerProject` rules that out.
 */
async function ensureNameFree(storage: Storage, config: ScoreConfig): Promise<void> {
  const [clash] = await selectConfigs(
    storage,
    scoreConfigsSql(
      'project_id = {projectId:String} AND name = {name:String} AND archived = 0 AND id != {id:String}',
      { projectId: config.projectId, name: config.name, id: config.id },
    ),
  );
  if (clash) {
    throw new ScoreConfigError('conflict', `an active score config named ${JSON.stringify(config.name)} already exists (${clash.config.id})`, [
      { field: 'name', message: 'already used by an active score config' },
    ]);
  }
}

// Config writes of one project run one after another in this process, so a check and
// its write are not interleaved with another's.
const serializedPerProject = keyedSerializer();

/** `scfg_` + creation time in hex (so ids sort by creation) + 64 random bits. */
function newConfigId(now: number): string {
  return `scfg_${now.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
}

interface ScoreConfigRow {
  id: string;
  project_id: string;
  name: string;
  data_type: ScoreDataType;
  min_value: number | null;
  max_value: number | null;
  categories: string[];
  description: string;
  archived: number;
  created_ms: string;
  updated_ms: string;
  created_by: string;
  version: string;
}

/** The statement selecting the configs a condition picks, with the tail (order, limit) given. */
export function scoreConfigsSql(condition: string, params: Record<string, unknown>, tail = 'ORDER BY id'): Statement {
  const query = `
      SELECT id, project_id, name, data_type, min_value, max_value, categories, description, archived, created_by,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms,
        toString(version) AS version
      FROM score_configs FINAL
      WHERE ${condition}
      ${tail}`;
  return { query, params };
}

/** The configs a statement of scoreConfigsSql picks, with the row version each was read at. */
async function selectConfigs(storage: Storage, statement: Statement) {
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'scores.configs.read'),
  });
  const rows = await result.json<ScoreConfigRow>();
  return rows.map((row) => ({
    version: Number(row.version),
    config: {
      id: row.id,
      projectId: row.project_id,
      name: row.name,
      dataType: row.data_type,
      min: row.min_value,
      max: row.max_value,
      categories: row.data_type === 'categorical' ? row.categories : null,
      description: row.description,
      archived: row.archived === 1,
      createdAt: new Date(Number(row.created_ms)).toISOString(),
      updatedAt: new Date(Number(row.updated_ms)).toISOString(),
      createdBy: row.created_by,
    } satisfies ScoreConfig,
  }));
}

async function writeVersion(storage: Storage, config: ScoreConfig, version: number): Promise<void> {
  await storage.client.insert({
    table: 'score_configs',
    values: [
      {
        id: config.id,
        project_id: config.projectId,
        name: config.name,
        data_type: config.dataType,
        min_value: config.min,
        max_value: config.max,
        categories: config.categories ?? [],
        description: config.description,
        archived: config.archived ? 1 : 0,
        created_at: msToDateTimeParam(Date.parse(config.createdAt)),
        updated_at: msToDateTimeParam(Date.parse(config.updatedAt)),
        created_by: config.createdBy,
        version,
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'scores.configs.write'),
  });
}
