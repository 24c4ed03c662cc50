import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { findFreePort } from './free-port.ts';

export interface LocalRedis {
  url: string;
  port: number;
  /** Stops the server and waits for it to exit (it writes its append-only file first). */
  stop(): Promise<void>;
}

export interface LocalRedisOptions {
  /** Where the append-only file lives. */
  dir: string;
  port?: number;
  /** Path of the redis-server binary. */
  binary?: string;
}

/**
 * Starts a private redis-server on 127.0.0.1 with append-only persistence (fsync every
 * second), for the single-machine mode and the tests. Resolves once it accepts connections.
 */
export async function startLocalRedis(opts: LocalRedisOptions): Promise<LocalRedis> {
  const dir = path.resolve(opts.dir);
  mkdirSync(dir, { recursive: true });
  const port = opts.port ?? (await findFreePort());
  const binary = opts.binary ?? 'redis-server';
  const child = spawn(
    binary,
    [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--dir', dir,
      '--appendonly', 'yes',
      '--appendfsync', 'everysec',
      '--save', '',
      // BullMQ needs keys never evicted.
      '--maxmemory-policy', 'noeviction',
      '--daemonize', 'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await waitUntilReady(child, binary, port);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function waitUntilReady(child: ChildProcess, binary: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`redis-server did not start within 15 s on port ${port}:\n${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout?.removeListener('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve();
      }
    };
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', (err: NodeJS.ErrnoException) =>
      fail(
        err.code === 'ENOENT'
          ? new Error(`${binary} not found: install it (Debian: apt-get install redis-server) or set REDIS_URL`)
          : err,
      ),
    );
    child.once('exit', (code) => fail(new Error(`redis-server exited with code ${code}:\n${output}`)));
  });
}
