import { describe, expect, it } from 'vitest';
import { StatementLineClosedError } from './engine-sessions.ts';
import { StorageUnavailableError, isStorageUnavailable } from './storage-unavailable.ts';

describe('isStorageUnavailable', () => {
  it('says yes to faults a retry can outlast', () => {
    expect(isStorageUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isStorageUnavailable(new StorageUnavailableError('cannot reach ClickHouse'))).toBe(true);
    expect(isStorageUnavailable(new Error('ChdbConnection is closed'))).toBe(true);
    expect(isStorageUnavailable(new StatementLineClosedError())).toBe(true);
    expect(isStorageUnavailable(new Error('Code: 1001. DB::Exception: Cannot open file /data/store/tmp_insert/data.bin, errno: 30, strerror: Read-only file system'))).toBe(true);
    expect(isStorageUnavailable(new Error('Code: 243. DB::Exception: Cannot reserve 1.00 MiB, not enough space. (NOT_ENOUGH_SPACE)'))).toBe(true);
  });

  it('says no to a bad query or bad data, which a retry repeats', () => {
    expect(isStorageUnavailable(new Error('Code: 62. DB::Exception: Syntax error: failed at position 8'))).toBe(false);
    expect(isStorageUnavailable(new Error('Code: 27. DB::Exception: Cannot parse input: expected \'"\' before: ...'))).toBe(false);
    expect(isStorageUnavailable('not an error')).toBe(false);
  });
});
