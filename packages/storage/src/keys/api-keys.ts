import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Storage } from '../client/client.ts';
import { msToDateTimeParam } from '../sql/values.ts';
import { named } from '../sql/query-name.ts';

/** What a key may do. `admin` also allows everything `read` and `write` allow. */
export const API_KEY_SCOPES = ['ingest', 'read', 'write', 'admin'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  name: string;
  /** The first characters of the secret, enough to recognise a key in a list. */
  prefix: string;
  scopes: ApiKeyScope[];
  createdAt: string;
  revokedAt: string | null;
}

export interface CreatedApiKey extends ApiKeyRecord {
  /** Shown once at creation; only its hash is stored. */
  secret: string;
}

const SECRET_PREFIX = 'aos_';

/** SHA-256 is enough here: secrets are 256 random bits, so there is nothing to brute-force. */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export async function createApiKey(
  storage: Storage,
  input: { projectId: string; name: string; scopes: readonly ApiKeyScope[] },
): Promise<CreatedApiKey> {
  const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
  const now = Date.now();
  const record: ApiKeyRecord = {
    id: `key_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
    projectId: input.projectId,
    name: input.name,
    prefix: secret.slice(0, 10),
    scopes: [...new Set(input.scopes)],
    createdAt: new Date(now).toISOString(),
    revokedAt: null,
  };
  await writeKeyVersion(storage, record, hashApiKey(secret), now);
  return { ...record, secret };
}

/** Marks a key revoked; returns the updated record, or null when no such key exists. */
export async function revokeApiKey(storage: Storage, id: string, projectId?: string): Promise<ApiKeyRecord | null> {
  const found = await findKeys(storage, 'id = {id:String}', { id });
  const current = found[0];
  if (!current || (projectId !== undefined && current.record.projectId !== projectId)) return null;
  if (current.record.revokedAt) return current.record;
  const now = Date.now();
  const record = { ...current.record, revokedAt: new Date(now).toISOString() };
  // A strictly newer version, even when revoked in the millisecond it was created.
  await writeKeyVersion(storage, record, current.hash, Math.max(now, Date.parse(current.record.createdAt) + 1));
  return record;
}

/** The key with this secret's hash, revoked or not, or null. */
export async function findApiKeyByHash(storage: Storage, hash: string): Promise<ApiKeyRecord | null> {
  const [found] = await findKeys(storage, 'key_hash = {hash:String}', { hash });
  return found ? found.record : null;
}

export async function listApiKeys(storage: Storage, projectId?: string): Promise<ApiKeyRecord[]> {
  const found = projectId
    ? await findKeys(storage, 'project_id = {projectId:String}', { projectId })
    : await findKeys(storage, '1', {});
  return found.map((f) => f.record);
}

interface ApiKeyRow {
  id: string;
  project_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  scopes: ApiKeyScope[];
  created_ms: string;
  revoked_ms: string | null;
}

async function findKeys(storage: Storage, condition: string, params: Record<string, unknown>) {
  const result = await storage.client.query({
    query: `
      SELECT id, project_id, name, key_hash, key_prefix, scopes,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        if(revoked_at IS NULL, NULL, toString(toUnixTimestamp64Milli(revoked_at))) AS revoked_ms
      FROM api_keys FINAL
      WHERE ${condition}
      ORDER BY created_at, id`,
    query_params: params,
    format: 'JSONEachRow',
    ...named(storage, 'keys.read'),
  });
  const rows = await result.json<ApiKeyRow>();
  return rows.map((row) => ({
    hash: row.key_hash,
    record: {
      id: row.id,
      projectId: row.project_id,
      name: row.name,
      prefix: row.key_prefix,
      scopes: row.scopes,
      createdAt: new Date(Number(row.created_ms)).toISOString(),
      revokedAt: row.revoked_ms === null ? null : new Date(Number(row.revoked_ms)).toISOString(),
    } satisfies ApiKeyRecord,
  }));
}

async function writeKeyVersion(storage: Storage, record: ApiKeyRecord, hash: string, version: number) {
  await storage.client.insert({
    table: 'api_keys',
    values: [
      {
        id: record.id,
        project_id: record.projectId,
        name: record.name,
        key_hash: hash,
        key_prefix: record.prefix,
        scopes: record.scopes,
        created_at: msToDateTimeParam(Date.parse(record.createdAt)),
        revoked_at: record.revokedAt ? msToDateTimeParam(Date.parse(record.revokedAt)) : null,
        version,
      },
    ],
    format: 'JSONEachRow',
    ...named(storage, 'keys.write'),
  });
}
