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
  /** Everything the process wrote to stdout and stderr so far (with `keepOutput`; else up to its start). */
  output(): string;
}

export interface ChildServiceOptions {
  /** Node flags before the entry (e.g. `--trace-gc`, whose lines a bench reads back). */
  nodeArgs?: string[];
  /** Keep collecting the output after the start (a long run with chatty flags holds it all). */
  keepOutput?: boolean;
}

/** Runs the all-in-one entry (`npm start`'s script) as a real child process. */
export function startChildService(env: Record<string, string>, options: ChildServiceOptions = {}): Promise<ChildService> {
  const args = ['--max-semi-space-size=64', '--heap-growing-percent=200', ...(options.nodeArgs ?? []), '--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // The OTLP/gRPC receiver's default port is fixed (4317): off unless a test gives one.
    env: { ...process.env, OTLP_GRPC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    let started = false;
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 60_000);
    const collect = (c: Buffer) => {
      if (!started || options.keepOutput) output += c.toString();
    };
    child.stderr!.on('data', collect);
    child.stdout!.on('data', (c: Buffer) => {
      collect(c);
      if (started) return;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        started = true;
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
          output: () => output,
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
