import { describe, expect, it } from 'vitest';
import { silentLogger } from '@aos/log';
import { createProjectSettingsCache } from './project-settings-cache.ts';

function setup(ttlMs = 1000) {
  let clock = 0;
  let version = 0;
  let failing = false;
  const loads: string[] = [];
  const cache = createProjectSettingsCache<string>({
    load: async (projectId) => {
      loads.push(projectId);
      if (failing) throw new Error('storage down');
      return `${projectId}@${version}`;
    },
    ttlMs,
    logger: silentLogger,
    now: () => clock,
  });
  return {
    cache,
    loads,
    tick: (ms: number) => (clock += ms),
    change: () => version++,
    fail: (on: boolean) => (failing = on),
  };
}

describe('createProjectSettingsCache', () => {
  it('loads once per project within the TTL, and again after it', async () => {
    const t = setup();
    expect(await t.cache.get('p1')).toBe('p1@0');
    t.change();
    t.tick(999);
    expect(await t.cache.get('p1')).toBe('p1@0');
    t.tick(1);
    // Stale: the old copy answers while the reload runs; the next request sees the new one.
    expect(await t.cache.get('p1')).toBe('p1@0');
    await Promise.resolve();
    expect(await t.cache.get('p1')).toBe('p1@1');
    expect(t.loads).toEqual(['p1', 'p1']);
  });

  it('answers with the stale copy at once while a slow reload runs, and starts only one', async () => {
    let release: (value: string) => void = () => {};
    let loads = 0;
    let clock = 0;
    const cache = createProjectSettingsCache<string>({
      load: (projectId) => {
        loads++;
        if (loads === 1) return Promise.resolve(`${projectId}@first`);
        return new Promise<string>((resolve) => (release = resolve));
      },
      ttlMs: 1000,
      logger: silentLogger,
      now: () => clock,
    });
    expect(await cache.get('p1')).toBe('p1@first');
    clock += 5000;
    expect(await cache.get('p1')).toBe('p1@first');
    expect(await cache.get('p1')).toBe('p1@first');
    expect(loads).toBe(2);
    release('p1@second');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get('p1')).toBe('p1@second');
  });

  it('shares one load between concurrent requests', async () => {
    const t = setup();
    const values = await Promise.all([t.cache.get('p1'), t.cache.get('p1'), t.cache.get('p2')]);
    expect(values).toEqual(['p1@0', 'p1@0', 'p2@0']);
    expect(t.loads).toEqual(['p1', 'p2']);
  });

  it('reloads at once after an invalidation of the project, or of everything', async () => {
    const t = setup();
    await t.cache.get('p1');
    await t.cache.get('p2');
    t.change();
    t.cache.invalidate('p1');
    expect(await t.cache.get('p1')).toBe('p1@1');
    expect(await t.cache.get('p2')).toBe('p2@0');
    t.cache.invalidate();
    expect(await t.cache.get('p2')).toBe('p2@1');
  });

  it('does not keep the answer of a load that started before an invalidation', async () => {
    const t = setup();
    const early = t.cache.get('p1');
    t.change();
    t.cache.invalidate('p1');
    await early;
    expect(await t.cache.get('p1')).toBe('p1@1');
  });

  it('serves the previous copy when a reload fails, and fails when there is none', async () => {
    const t = setup();
    await t.cache.get('p1');
    t.fail(true);
    t.tick(5000);
    expect(await t.cache.get('p1')).toBe('p1@0');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await t.cache.get('p1')).toBe('p1@0');
    expect(t.loads).toEqual(['p1', 'p1', 'p1']);
    await expect(t.cache.get('p2')).rejects.toThrow('storage down');
  });
});
