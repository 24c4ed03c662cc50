import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from './settings.ts';

// The configuration table is what operators read; a setting missing from it (or a row
// left behind by a removed setting) is a documentation bug that no other test would see.
const table = readFileSync(path.resolve(import.meta.dirname, '../../../docs/configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  it('has one row per setting in SETTINGS, and none for settings that do not exist', () => {
    const documented = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);
    const settings = Object.values(SETTINGS).flatMap((group) => Object.keys(group));
    expect([...documented].sort()).toEqual([...settings].sort());
  });
});
