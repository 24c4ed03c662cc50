import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiKey,
  findActiveScoreConfigs,
  findArchivedScoreConfigNames,
  type ApiKeyScope,
  type CreatedApiKey,
} from '@aos/storage';
import { startTestService, type TestService } from './support/service.ts';

let svc: TestService;
const keys: Record<'read' | 'write' | 'ingest' | 'admin' | 'other' | 'paging', CreatedApiKey> = {} as never;

beforeAll(async () => {
  svc = await startTestService({ API_KEY_CACHE_TTL_MS: '0' });
  const storage = svc.service.storage;
  const make = (projectId: string, scopes: ApiKeyScope[]) => createApiKey(storage, { projectId, name: scopes.join('+'), scopes });
  keys.read = await make('default', ['read']);
  keys.write = await make('default', ['write']);
  keys.ingest = await make('default', ['ingest']);
  keys.admin = await make('default', ['admin']);
  keys.other = await make('other', ['read', 'write']);
  keys.paging = await make('paging', ['read', 'write']);
});
afterAll(async () => {
  await svc?.stop();
});

async function call(method: string, path: string, key: CreatedApiKey | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key.secret;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init = { method, headers, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) };
  const res = await svc.api(`/api/v1/score-configs${path}`, { ...init, key: null });
  return { status: res.status, body: (await res.json()) as any };
}
const create = (body: unknown, key = keys.write) => call('POST', '', key, body);
const patch = (id: string, body: unknown, key = keys.write) => call('PATCH', `/${id}`, key, body);
const list = async (query = '', key = keys.read) => call('GET', query, key);
const names = (res: { body: any }) => res.body.data.map((c: any) => c.name);

describe('score configs', () => {
  it('creates numeric, boolean and categorical configs', async () => {
    const numeric = await create({ name: '  accuracy ', dataType: 'numeric', min: 0, max: 1, description: 'share right' });
    expect(numeric.status).toBe(201);
    expect(numeric.body).toMatchObject({
      projectId: 'default', name: 'accuracy', dataType: 'numeric', min: 0, max: 1, categories: null,
      description: 'share right', archived: false, createdBy: keys.write.id,
    });
    expect(numeric.body.id).toMatch(/^scfg_/);
    expect(numeric.body.createdAt).toBe(numeric.body.updatedAt);
    const boolean = await create({ name: 'helpful', dataType: 'boolean' }, keys.admin);
    expect(boolean.status).toBe(201);
    expect(boolean.body).toMatchObject({ dataType: 'boolean', min: null, max: null, categories: null, description: '' });
    const categorical = await create({ name: 'tone', dataType: 'categorical', categories: ['calm', 'rude'] });
    expect(categorical.status).toBe(201);
    expect(categorical.body.categories).toEqual(['calm', 'rude']);
    expect(names(await list())).toEqual(expect.arrayContaining(['accuracy', 'helpful', 'tone']));
  });

  it('refuses a second active config of a name with 409', async () => {
    const res = await create({ name: 'accuracy', dataType: 'boolean' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    expect(res.body.error.message).toContain('"accuracy"');
  });

  it('of concurrent creates of one name, exactly one wins', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => create({ name: 'raced', dataType: 'boolean' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('archives, hides from the default list, frees the name; unarchiving then conflicts', async () => {
    const first = (await create({ name: 'relevance', dataType: 'numeric' })).body;
    const archived = await patch(first.id, { archived: true });
    expect(archived.status).toBe(200);
    expect(archived.body.archived).toBe(true);
    expect(archived.body.updatedAt >= first.updatedAt).toBe(true);
    expect(names(await list())).not.toContain('relevance');
    const all = await list('?includeArchived=true');
    expect(all.body.data.find((c: any) => c.id === first.id)?.archived).toBe(true);

    const second = await create({ name: 'relevance', dataType: 'categorical', categories: ['low', 'high'] });
    expect(second.status).toBe(201);
    const unarchive = await patch(first.id, { archived: false });
    expect(unarchive.status).toBe(409);
    expect(unarchive.body.error.code).toBe('conflict');
    // Once the other one is archived, the first may come back.
    expect((await patch(second.body.id, { archived: true })).status).toBe(200);
    expect((await patch(first.id, { archived: false })).body.archived).toBe(false);

    const storage = svc.service.storage;
    const active = await findActiveScoreConfigs(storage, 'default', ['relevance', 'tone', 'nope']);
    expect([...active.keys()].sort()).toEqual(['relevance', 'tone']);
    expect(active.get('relevance')?.id).toBe(first.id);
    expect((await patch(first.id, { archived: true })).status).toBe(200);
    expect([...(await findArchivedScoreConfigNames(storage, 'default', ['relevance', 'tone']))]).toEqual(['relevance']);
  });

  it('changes description, bounds and categories; judges bounds with the stored ones', async () => {
    const { id } = (await create({ name: 'latency-ok', dataType: 'numeric', min: 0, max: 10 })).body;
    const changed = await patch(id, { description: 'seconds', min: 1, max: null });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'latency-ok', description: 'seconds', min: 1, max: null });
    const tooHigh = await patch(id, { max: 0.5 });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.error.details).toEqual([{ field: 'min', message: 'must not be greater than max (0.5)' }]);
    const listed = (await list()).body.data.find((c: any) => c.id === id);
    expect(listed).toMatchObject({ description: 'seconds', min: 1, max: null });

    const tone = (await list()).body.data.find((c: any) => c.name === 'tone');
    expect((await patch(tone.id, { categories: ['calm', 'rude', 'sarcastic'] })).body.categories).toHaveLength(3);
    expect((await patch(tone.id, { min: 1 })).body.error.details[0].field).toBe('min');
    expect((await patch(id, { categories: ['a'] })).body.error.details[0].field).toBe('categories');
    expect((await patch('scfg_unknown', { description: 'x' })).status).toBe(404);
  });

  it('refuses invalid bodies with 400 naming the field', async () => {
    const { id } = (await create({ name: 'fixed', dataType: 'numeric' })).body;
    const cases: Array<[() => ReturnType<typeof call>, string]> = [
      [() => create({ name: 'a', dataType: 'numeric', min: 2, max: 1 }), 'min'],
      [() => create({ name: 'b', dataType: 'categorical' }), 'categories'],
      [() => create({ name: 'c', dataType: 'categorical', categories: [] }), 'categories'],
      [() => create({ name: 'd', dataType: 'categorical', categories: ['x', 'x'] }), 'categories.1'],
      [() => create({ name: 'e', dataType: 'categorical', categories: ['x'], max: 3 }), 'max'],
      [() => create({ name: 'f', dataType: 'boolean', categories: ['x'] }), 'categories'],
      [() => create({ name: 'g', dataType: 'numeric', color: 'red' }), 'color'],
      [() => create({ name: 'h', dataType: 'text' }), 'dataType'],
      [() => create({ name: '   ', dataType: 'numeric' }), 'name'],
      [() => create({ name: 'x'.repeat(201), dataType: 'numeric' }), 'name'],
      [() => create({ name: 'i', dataType: 'numeric', description: 'x'.repeat(2001) }), 'description'],
      [() => create({ name: 'j', dataType: 'numeric', min: '0' }), 'min'],
      [() => create({ dataType: 'numeric' }), 'name'],
      [() => patch(id, { name: 'renamed' }), 'name'],
      [() => patch(id, { dataType: 'boolean' }), 'dataType'],
      [() => patch(id, { archived: 'yes' }), 'archived'],
      [() => patch(id, { projectId: 'other' }), 'projectId'],
    ];
    for (const [send, field] of cases) {
      const res = await send();
      expect(res.status, field).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.map((d: any) => d.field), field).toContain(field);
    }
    expect((await create('not json')).status).toBe(400);
    expect((await patch(id, { name: 'renamed' })).body.error.details[0].message).toMatch(/cannot be changed/);
    expect((await create({ name: 'g', dataType: 'numeric', color: 'red' })).body.error.details[0].message).toBe('unknown field');
    expect(names(await list('?includeArchived=true'))).not.toContain('a');
  });

  it('pages with an opaque cursor, limit 1 walking every config once', async () => {
    const made = [];
    for (const name of ['p1', 'p2', 'p3', 'p4']) made.push((await create({ name, dataType: 'boolean' }, keys.paging)).body.id);
    await patch(made[1], { archived: true }, keys.paging);
    const walk = async (extra: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await list(`?limit=1${extra}${cursor ? `&cursor=${cursor}` : ''}`, keys.paging);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(1);
        seen.push(...res.body.data.map((c: any) => c.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      return seen;
    };
    expect(await walk('')).toEqual([made[0], made[2], made[3]]);
    expect(await walk('&includeArchived=true')).toEqual(made);
    expect((await list('', keys.paging)).body.nextCursor).toBeNull();
    for (const query of ['?limit=0', '?limit=501', '?limit=x', '?cursor=bm9wZQ', '?includeArchived=yes', '?sort=name']) {
      const res = await list(query, keys.paging);
      expect(res.status, query).toBe(400);
    }
  });

  it('stays inside the key\'s project', async () => {
    const own = (await list()).body.data;
    expect(own.length).toBeGreaterThan(0);
    expect((await list('', keys.other)).body.data).toEqual([]);
    expect((await list('?includeArchived=true', keys.other)).body.data).toEqual([]);
    expect((await patch(own[0].id, { description: 'hijacked' }, keys.other)).status).toBe(404);
    // Same name in another project is no conflict.
    expect((await create({ name: 'accuracy', dataType: 'boolean' }, keys.other)).status).toBe(201);
    expect((await list('?projectId=other')).status).toBe(403);
    expect((await list('?projectId=default')).status).toBe(200);
    expect((await call('POST', '?projectId=other', keys.write, { name: 'z', dataType: 'boolean' })).status).toBe(403);
  });

  it('checks scopes: read to list, write to create and change', async () => {
    const { id } = (await list()).body.data[0];
    expect((await create({ name: 'scoped', dataType: 'boolean' }, keys.read)).status).toBe(403);
    expect((await patch(id, { description: 'x' }, keys.read)).status).toBe(403);
    expect((await list('', keys.ingest)).status).toBe(403);
    expect((await list('', keys.write)).status).toBe(403);
    expect((await list('', keys.admin)).status).toBe(200);
    const anonymous = [await call('GET', '', null), await call('POST', '', null, {}), await call('PATCH', `/${id}`, null, {})];
    for (const res of anonymous) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });
});
