import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@aos/storage';
import { startTestService, type TestService } from './support/service.ts';
import { readJson, type ErrorBody, type Page, type TraceView } from './support/api-types.ts';

let svc: TestService;
let otherKey: string;

beforeAll(async () => {
  svc = await startTestService();
  otherKey = (await createApiKey(svc.service.storage, { projectId: 'other', name: 'other team', scopes: ['read', 'write'] })).secret;
  const dims = await svc.api('/api/v1/trace-dimensions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ keys: ['tier'] }),
  });
  expect(dims.status).toBe(201);
});
afterAll(async () => {
  await svc?.stop();
});

function send(method: string, path: string, body?: unknown, key?: string) {
  return svc.api(`/api/v1/trace-views${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(key ? { key } : {}),
  });
}

const VIEW = {
  name: 'Failing gold runs',
  description: 'errors of paying customers',
  filter: { status: 'error', environment: 'prod', query: 'cost > 0.5 and model = "gpt-4o"', flag: 'loop', dim: ['tier:gold'] },
  sort: { field: 'cost', order: 'desc' },
  columns: ['traceId', 'name', 'cost', 'durationMs'],
};

describe('saved views', () => {
  let id: string;

  it('creates a view with owner and timestamps, repeated filter parameters stored as arrays', async () => {
    const res = await send('POST', '', VIEW);
    expect(res.status, await res.clone().text()).toBe(201);
    const view = await readJson<TraceView>(res);
    expect(view.id).toMatch(/^view_[0-9a-f]{24}$/);
    expect(view).toMatchObject({
      projectId: 'default',
      name: VIEW.name,
      description: VIEW.description,
      filter: { ...VIEW.filter, flag: ['loop'] },
      sort: VIEW.sort,
      columns: VIEW.columns,
      owner: expect.stringMatching(/^development \(/),
    });
    expect(Date.parse(view.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(view.updatedAt).toBe(view.createdAt);
    id = view.id;
  });

  it('reads it back by id and in the list', async () => {
    const one = await readJson<TraceView>(await send('GET', `/${id}`));
    expect(one).toMatchObject({ id, name: VIEW.name, filter: { dim: ['tier:gold'] } });
    const list = await readJson<Page<TraceView>>(await send('GET', ''));
    expect(list.data.map((v) => v.id)).toEqual([id]);
    expect(list.nextCursor).toBeNull();
  });

  it('refuses invalid views with the field named', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ ...VIEW, name: 'q', filter: { query: 'cost >' } }, /^filter\.query/],
      [{ ...VIEW, name: 'q', filter: { query: 'nosuchfield = 1' } }, /^filter\.query/],
      [{ ...VIEW, name: 'q', filter: { colour: 'red' } }, /^filter\.colour/],
      [{ ...VIEW, name: 'q', filter: { flag: ['slow'] } }, /^filter\.flag/],
      [{ ...VIEW, name: 'q', filter: { startTime: '2026-02-01T00:00:00Z', endTime: '2026-01-01T00:00:00Z' } }, /^filter\.startTime/],
      [{ ...VIEW, name: 'q', sort: { field: 'mood' } }, /^sort\.field/],
      [{ ...VIEW, name: 'q', columns: ['traceId', 'password'] }, /^columns/],
      [{ ...VIEW, name: 'q', columns: ['cost', 'cost'] }, /^columns/],
      [{ ...VIEW, name: '' }, /^name/],
      [{ ...VIEW, name: 'q', owner: 'me' }, /^owner/],
      [{ ...VIEW, name: 'q', filter: { projectId: 'other' } }, /^filter\.projectId/],
    ];
    for (const [body, field] of cases) {
      const res = await send('POST', '', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = (await readJson<ErrorBody>(res)).error;
      expect(error.details[0]!.field, JSON.stringify(error)).toMatch(field);
    }
    expect((await send('POST', '', 'not json')).status).toBe(400);
    // Well-formed, but not one of the project's dimensions: what is stored decides, so 422.
    const unknownDimension = await send('POST', '', { ...VIEW, name: 'q', filter: { dim: 'plan:pro' } });
    expect(unknownDimension.status).toBe(422);
    expect((await readJson<ErrorBody>(unknownDimension)).error.details[0]!.field).toMatch(/^filter\.dim/);
  });

  it('refuses a second view of the same name', async () => {
    const res = await send('POST', '', { name: VIEW.name });
    expect(res.status).toBe(409);
  });

  it('changes a view: only the given fields, validated, with a newer updatedAt', async () => {
    await new Promise((r) => setTimeout(r, 5));
    const res = await send('PATCH', `/${id}`, { name: 'Failing runs', filter: { status: 'error' } });
    expect(res.status, await res.clone().text()).toBe(200);
    const view = await readJson<TraceView>(res);
    expect(view).toMatchObject({ id, name: 'Failing runs', filter: { status: 'error' }, sort: VIEW.sort, columns: VIEW.columns });
    expect(Date.parse(view.updatedAt)).toBeGreaterThan(Date.parse(view.createdAt));
    expect((await send('PATCH', `/${id}`, { filter: { query: '((' } })).status).toBe(400);
    expect((await send('PATCH', `/${id}`, { createdAt: 'now' })).status).toBe(400);
    const stored = await readJson<TraceView>(await send('GET', `/${id}`));
    expect(stored.name).toBe('Failing runs');
  });

  it('pages through views with an opaque cursor', async () => {
    for (const name of ['b', 'c']) expect((await send('POST', '', { name })).status).toBe(201);
    const first = await readJson<Page<TraceView>>(await send('GET', '?limit=2'));
    expect(first.data).toHaveLength(2);
    const second = await readJson<Page<TraceView>>(await send('GET', `?limit=2&cursor=${first.nextCursor}`));
    expect(second.data.map((v) => v.name)).toEqual(['c']);
    expect(second.nextCursor).toBeNull();
    expect((await send('GET', '?cursor=bogus')).status).toBe(400);
  });

  it("keeps views per project: another project neither sees nor changes this one's", async () => {
    expect((await readJson<Page<TraceView>>(await send('GET', '', undefined, otherKey))).data).toEqual([]);
    expect((await send('GET', `/${id}`, undefined, otherKey)).status).toBe(404);
    expect((await send('PATCH', `/${id}`, { name: 'mine now' }, otherKey)).status).toBe(404);
    expect((await send('DELETE', `/${id}`, undefined, otherKey)).status).toBe(404);
    // The same name is free in another project.
    expect((await send('POST', '', { name: 'Failing runs' }, otherKey)).status).toBe(201);
  });

  it('deletes a view', async () => {
    expect((await send('DELETE', `/${id}`)).status).toBe(204);
    expect((await send('GET', `/${id}`)).status).toBe(404);
    expect((await send('DELETE', `/${id}`)).status).toBe(404);
    const names = (await readJson<Page<TraceView>>(await send('GET', ''))).data.map((v) => v.name);
    expect(names).toEqual(['b', 'c']);
  });
});
