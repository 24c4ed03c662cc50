import { describe, expect, it } from 'vitest';
import { ApiError } from '@aos/http';
import type { ApiKeyRecord } from '@aos/storage';
import { parseTraceFilter } from './trace-filter.ts';

const key: ApiKeyRecord = {
  id: 'key_1',
  projectId: 'p1',
  name: 'k',
  prefix: 'aos_xxxx',
  scopes: ['read'],
  createdAt: new Date().toISOString(),
  revokedAt: null,
};

const DAY = 24 * 60 * 60 * 1000;
const now = Date.parse('2026-02-01T12:00:00Z');

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

describe('parseTraceFilter', () => {
  it('defaults to the 7 days before now in the key’s project', () => {
    expect(parseTraceFilter({}, key, now)).toEqual({ projectId: 'p1', startTimeMs: now - 7 * DAY, endTimeMs: now });
  });

  it('looks back 7 days from a given endTime', () => {
    const f = parseTraceFilter({ endTime: '2026-01-10T00:00:00Z' }, key, now);
    expect(f.endTimeMs).toBe(Date.parse('2026-01-10T00:00:00Z'));
    expect(f.startTimeMs).toBe(f.endTimeMs - 7 * DAY);
  });

  it('accepts ISO 8601 and epoch milliseconds', () => {
    const start = Date.parse('2026-01-01T00:00:00.250Z');
    const f = parseTraceFilter({ startTime: '2026-01-01T00:00:00.250Z', endTime: String(start + 1000) }, key, now);
    expect(f).toEqual({ projectId: 'p1', startTimeMs: start, endTimeMs: start + 1000 });
  });

  it.each(['yesterday', ''])('refuses startTime=%j naming the field', (startTime) => {
    const err = apiError(() => parseTraceFilter({ startTime }, key, now));
    expect(err.status).toBe(400);
    expect(err.details[0]?.field).toBe('startTime');
  });

  it('refuses a startTime not before endTime', () => {
    for (const startTime of [String(now), String(now + 1)]) {
      const err = apiError(() => parseTraceFilter({ startTime, endTime: String(now) }, key, now));
      expect(err.status).toBe(400);
      expect(err.details[0]?.field).toBe('startTime');
    }
  });

  it('accepts the key’s own projectId', () => {
    expect(parseTraceFilter({ projectId: 'p1' }, key, now).projectId).toBe('p1');
  });

  it('refuses another project with 403', () => {
    const err = apiError(() => parseTraceFilter({ projectId: 'p2' }, key, now));
    expect(err.status).toBe(403);
    expect(err.code).toBe('forbidden');
    expect(err.details[0]?.field).toBe('projectId');
  });
});

describe('parseTraceFilter flags', () => {
  it('takes repeated flags, once each', () => {
    expect(parseTraceFilter({ flag: ['loop', 'cost_outlier', 'loop'] }, key, now).flags).toEqual(['loop', 'cost_outlier']);
    expect(parseTraceFilter({}, key, now).flags).toBeUndefined();
  });
  it('refuses an unknown flag, naming the field', () => {
    const err = apiError(() => parseTraceFilter({ flag: ['slow'] }, key, now));
    expect(err.message).toContain('flag');
    expect(err.message).toContain('duplicate_tools, loop, cost_outlier, empty_output');
  });
});
