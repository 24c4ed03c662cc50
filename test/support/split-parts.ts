import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPTS = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;

export type PartScript = 'start:ingest' | 'start:writer' | 'start:query';

/** The log line each part writes once it serves, with its HTTP port. */
const READY: Record<PartScript, string> = { 'start:ingest': 'ingest listening', 'start:writer': 'writer metrics listening', 'start:query': 'query listening' };

export interface Part {
  script: PartScript;
  url: string;
  process: ChildProcess;
  output(): string;
  /** The exit, or 'still running' after `ms`. */
  exitWithin(ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | 'still running'>;
}

/**
 * Starts one part of the split deployment with the command line of its npm script (run
 * directly rather than under `npm run`, so signals reach the part itself, as they do in a
 * container whose entry is the node process).
 */
export function startPart(script: PartScript, env: Record<string, string>): Promise<Part> {
  const [command, ...args] = SCRIPTS[script]!.split(' ');
  if (command !== 'node') throw new Error(`${script}: expected a node command line, got ${SCRIPTS[script]}`);
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const part = (url: string): Part => ({
    script,
    url,
    process: child,
    output: () => output,
    exitWithin: (ms) => Promise.race([exit, new Promise<'still running'>((r) => setTimeout(() => r('still running'), ms).unref())]),
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.includes(READY[script])) continue;
        const { port } = JSON.parse(line) as { port: number };
        clearTimeout(timer);
        resolve(part(`http://127.0.0.1:${port}`));
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
        child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
        return;
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}) before it served:\n${output}`));
    });
  });
}
