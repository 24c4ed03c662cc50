import { METADATA_JSON_ATTRIBUTE, METADATA_PREFIXES } from '@aos/domain';
import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';
import type { Statement } from '../sql/statement.ts';

/** Most dimension keys a project may have: each is extracted from every span at ingest. */
export const MAX_DIMENSION_KEYS = 50;

export interface DimensionKey {
  key: string;
  addedAt: string;
  addedBy: string;
}

/** The project's dimension keys, in the order they were added. */
export async function listDimensionKeys(storage: Storage, projectId: string): Promise<DimensionKey[]> {
  const result = await storage.client.query({
    query: `
      SELECT key, added_by, toString(toUnixTimestamp64Milli(added_at)) AS added_ms
      FROM dimension_keys FINAL
      WHERE project_id = {projectId:String}
      ORDER BY added_at, key`,
    query_params: { projectId },
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.dimension-keys.list'),
  });
  const rows = await result.json<{ key: string; added_by: string; added_ms: string }>();
  return rows.map((r) => ({ key: r.key, addedAt: new Date(Number(r.added_ms)).toISOString(), addedBy: r.added_by }));
}

export class DimensionLimitError extends Error {}

/**
 * Adds keys (already present ones are left as they were). Throws DimensionLimitError when
 * the project would have more than MAX_DIMENSION_KEYS. Returns the keys actually added.
 */
export async function addDimensionKeys(
  storage: Storage,
  input: { projectId: string; keys: readonly string[]; addedBy: string },
): Promise<string[]> {
  const existing = new Set((await listDimensionKeys(storage, input.projectId)).map((k) => k.key));
  const added = [...new Set(input.keys)].filter((k) => !existing.has(k));
  if (existing.size + added.length > MAX_DIMENSION_KEYS) {
    throw new DimensionLimitError(
      `a project has at most ${MAX_DIMENSION_KEYS} dimension keys; it has ${existing.size} and ${added.length} would be added`,
    );
  }
  if (added.length === 0) return [];
  const now = msToDateTimeParam(Date.now());
  await storage.client.insert({
    table: 'dimension_keys',
    values: added.map((key) => ({ project_id: input.projectId, key, added_at: now, added_by: input.addedBy })),
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.dimension-keys.write'),
  });
  return added;
}

export interface MetadataKeyCandidate {
  key: string;
  /** Spans of the sample carrying the key. */
  spans: number;
  /** Share of the sampled spans carrying it, 0..1. */
  share: number;
  /** Up to three values seen, to recognise the key. */
  examples: string[];
}

/** Spans read at most when looking for candidate keys: discovery is a sample, not a census. */
const DISCOVERY_SAMPLE_SPANS = 200_000;

/** What discoverMetadataKeys samples: a project's spans since a time, the keys to leave out, how many candidates. */
export type MetadataKeysInput = { projectId: string; sinceMs: number; exclude: readonly string[]; limit: number };

/** The statement of discoverMetadataKeys: candidate keys of a sample of recent spans, with the sample's size. */
export function metadataKeysSql(input: MetadataKeysInput): Statement {
  const query = `
      WITH sample AS (
        SELECT attributes FROM spans
        WHERE project_id = {projectId:String} AND start_time >= {since:DateTime64(3)}
        ORDER BY start_time DESC
        LIMIT {sample:UInt32}
      ),
      keyed AS (
        SELECT arrayJoin(arrayConcat(
            arrayFilter(x -> x != '', arrayMap(k -> multiIf(${prefixCases('k')}, ''), mapKeys(attributes))),
            if(startsWith(attributes[{metadataJson:String}], '{'), JSONExtractKeys(attributes[{metadataJson:String}]), [])
          )) AS key,
          attributes
        FROM sample
      )
      SELECT key, count() AS spans, groupUniqArray(3)(${valueOf('key')}) AS examples,
        (SELECT count() FROM sample) AS sampled
      FROM keyed
      WHERE key NOT IN {exclude:Array(String)}
      GROUP BY key
      ORDER BY spans DESC, key
      LIMIT {limit:UInt32}`;
  const params = {
    projectId: input.projectId,
    since: msToDateTimeParam(input.sinceMs),
    sample: DISCOVERY_SAMPLE_SPANS,
    exclude: [...input.exclude],
    limit: input.limit,
    metadataJson: METADATA_JSON_ATTRIBUTE,
    ...Object.fromEntries(METADATA_PREFIXES.map((p, i) => [`prefix${i}`, p])),
  };
  return { query, params };
}

/**
 * Metadata keys seen on recent spans (metadata-prefixed attributes with the prefix taken
 * off, and the keys of OpenInference's `metadata` JSON object) that are not dimensions
 * yet, most frequent first.
 */
export async function discoverMetadataKeys(
  storage: Storage,
  input: MetadataKeysInput,
): Promise<{ sampledSpans: number; candidates: MetadataKeyCandidate[] }> {
  const statement = metadataKeysSql(input);
  const result = await storage.client.query({
    query: statement.query,
    query_params: statement.params,
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.metadata-keys.discover'),
  });
  const rows = await result.json<{ key: string; spans: string; examples: string[]; sampled: string }>();
  // Every row carries the sample's size; with no candidate at all it is counted on its own.
  const sampledSpans = rows.length > 0 ? Number(rows[0]!.sampled) : await sampleSize(storage, input.projectId, input.sinceMs);
  return {
    sampledSpans,
    candidates: rows.map((r) => ({
      key: r.key,
      spans: Number(r.spans),
      share: sampledSpans > 0 ? Number(r.spans) / sampledSpans : 0,
      examples: r.examples.filter((e) => e !== '').map((e) => e.slice(0, 100)),
    })),
  };
}

async function sampleSize(storage: Storage, projectId: string, sinceMs: number): Promise<number> {
  const result = await storage.client.query({
    query: `
      SELECT count() AS n FROM (
        SELECT 1 FROM spans
        WHERE project_id = {projectId:String} AND start_time >= {since:DateTime64(3)}
        LIMIT {sample:UInt32}
      )`,
    query_params: { projectId, since: msToDateTimeParam(sinceMs), sample: DISCOVERY_SAMPLE_SPANS },
    format: 'JSONEachRow',
    ...named(storage, 'project-settings.metadata-keys.sample-size'),
  });
  return Number((await result.json<{ n: string }>())[0]?.n ?? 0);
}

/** `multiIf` branches: a key under a metadata prefix → the key without it. */
function prefixCases(key: string): string {
  return METADATA_PREFIXES.map(
    (_, i) => `startsWith(${key}, {prefix${i}:String}), substring(${key}, length({prefix${i}:String}) + 1)`,
  ).join(', ');
}

/** The key's value on a sampled span, wherever it came from. */
function valueOf(key: string): string {
  const prefixed = METADATA_PREFIXES.map((_, i) => `attributes[concat({prefix${i}:String}, ${key})]`);
  const json = 'attributes[{metadataJson:String}]';
  const fromJson = `if(JSONType(${json}, ${key}) = 'String', JSONExtractString(${json}, ${key}), nullIf(JSONExtractRaw(${json}, ${key}), ''))`;
  return `coalesce(${[...prefixed, fromJson].map((p) => `nullIf(${p}, '')`).join(', ')}, '')`;
}
