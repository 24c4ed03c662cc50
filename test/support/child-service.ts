import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ChildService {
  url: string;
  process: ChildProcess;
  /** SIGKILL: no shutdown hooks, no flush. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful path. */
  stop(): Promise<void>;
}

/** Runs the all-in-one entry (`npm start`'s script) as a real child process. */
export function startChildService(env: Record<string, string>): Promise<ChildService> {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')], {
    cwd: ROOT,
    // The OTLP/gRPC receiver's default port is fixed (4317): off unless a test gives one.
    env: { ...process.env, OTLP_GRPC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 60_000);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          process: child,
          kill: async () => {
            child.kill('SIGKILL');
            await exited;
          },
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${output}`));
    });
  });
}

export function devKey(dataDir: string): string {
  return readFileSync(path.join(dataDir, 'dev-api-key.txt'), 'utf8').trim();
}
