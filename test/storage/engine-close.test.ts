import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSupportScript } from '../support/support-script.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs the helper in a process of its own (a crash of the engine ends the process): its exit and what it printed. */
function closeDuringInsert(): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'aos-engine-close-'));
  dirs.push(dir);
  const child = runSupportScript('exit-after-storage-close.ts', [dir]);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, out })));
}

describe('closing the embedded engine', () => {
  it('waits for the statement still running, so a process that exits after the close exits cleanly', async () => {
    // Before the close waited, this exit was SIGSEGV every time (the engine torn down under the insert's thread).
    const exit = await closeDuringInsert();
    expect({ code: exit.code, signal: exit.signal, printed: exit.out.trim() }).toEqual({
      code: 0,
      signal: null,
      printed: 'insert ended before the close returned: true',
    });
  });
});
