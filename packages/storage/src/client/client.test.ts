import { describe, expect, it } from 'vitest';
import { writeSettings } from './client.ts';

describe('writeSettings', () => {
  it('turns async inserts off on every server, and on a cluster passes inserts into a Distributed table to the shards before answering', () => {
    expect(writeSettings(undefined)).toEqual({ async_insert: 0, wait_for_async_insert: 1 });
    expect(writeSettings('main')).toEqual({ async_insert: 0, wait_for_async_insert: 1, distributed_foreground_insert: 1 });
  });
});
