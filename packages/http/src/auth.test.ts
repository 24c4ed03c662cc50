import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, ApiKeyScope } from '@aos/storage';
import { ApiError } from './errors.ts';
import { checkApiKey, keyAllows, projectFor, type KeyAuthenticator } from './auth.ts';

function keyWith(...scopes: ApiKeyScope[]): ApiKeyRecord {
  return { id: 'key_1', projectId: 'p1', name: 'k', prefix: 'aos_xxxx', scopes, createdAt: new Date().toISOString(), revokedAt: null };
}

const ALL: ApiKeyScope[] = ['ingest', 'read', 'write', 'admin'];
const allowedBy = (key: ApiKeyRecord) => ALL.filter((s) => keyAllows(key, s));

describe('keyAllows', () => {
  it('allows exactly the scopes a key has', () => {
    expect(allowedBy(keyWith('read'))).toEqual(['read']);
    expect(allowedBy(keyWith('ingest'))).toEqual(['ingest']);
    expect(allowedBy(keyWith('write'))).toEqual(['write']);
    expect(allowedBy(keyWith('ingest', 'read'))).toEqual(['ingest', 'read']);
    expect(allowedBy(keyWith())).toEqual([]);
  });

  it('lets admin cover read and write but not ingest', () => {
    expect(allowedBy(keyWith('admin'))).toEqual(['read', 'write', 'admin']);
  });
});

describe('projectFor', () => {
  it('returns the key’s project when none or the same is asked for', () => {
    expect(projectFor(keyWith('read'), undefined)).toBe('p1');
    expect(projectFor(keyWith('read'), 'p1')).toBe('p1');
  });

  it('refuses another project with 403', () => {
    const call = () => projectFor(keyWith('admin'), 'p2');
    expect(call).toThrow(ApiError);
    expect(call).toThrow(expect.objectContaining({ status: 403, code: 'forbidden' }));
  });
});

describe('checkApiKey', () => {
  const keys: KeyAuthenticator = {
    lookup: async (secret) => (secret === 'aos_reader' ? keyWith('read') : secret === 'aos_exporter' ? keyWith('ingest') : null),
    clear: () => {},
  };

  it('returns the key when it has the scope', async () => {
    await expect(checkApiKey(keys, 'aos_exporter', 'ingest')).resolves.toMatchObject({ projectId: 'p1', scopes: ['ingest'] });
  });

  it('refuses a missing or unknown key with 401 and a key without the scope with 403', async () => {
    await expect(checkApiKey(keys, undefined, 'ingest')).rejects.toMatchObject({ status: 401, message: expect.stringMatching(/missing API key.*x-api-key/) });
    await expect(checkApiKey(keys, 'aos_unknown', 'ingest')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    await expect(checkApiKey(keys, 'aos_reader', 'ingest')).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/lacks the ingest scope/) });
  });

  it('lets a failure of the key store through as it is', async () => {
    const down: KeyAuthenticator = { lookup: () => Promise.reject(new Error('connect ECONNREFUSED')), clear: () => {} };
    await expect(checkApiKey(down, 'aos_exporter', 'ingest')).rejects.toThrow('ECONNREFUSED');
  });
});
