import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Runs a script of test/support in a process of its own (what a test must see crash, or be
 * killed, without taking the test's process with it), its stdout piped to the test.
 */
export function runSupportScript(script: string, args: readonly string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/support', script), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
}
