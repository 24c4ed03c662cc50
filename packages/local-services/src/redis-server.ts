import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { findFreePort } from './free-port.ts';

/** The append-only file's size below which Redis does not rewrite it (see startLocalRedis). */
const AOF_REWRITE_MIN_SIZE = '512mb';

/** The pid of the redis-server this directory belongs to, written when it starts. */
const PID_FILE = 'redis-server.pid';

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
  /** When the append-only file is fsynced: once a second (a host crash can cost the last second), or after every write. */
  appendfsync?: 'everysec' | 'always';
}

/**
 * Starts a private redis-server on 127.0.0.1 with append-only persistence (fsync every
 * second unless `appendfsync` says always), for the single-machine mode and the tests. Resolves once it accepts connections.
 * One server per directory: a server left running there by a process that was killed
 * (SIGKILL leaves no chance to stop it) is shut down first, so two never write one
 * append-only file.
 */
export async function startLocalRedis(opts: LocalRedisOptions): Promise<LocalRedis> {
  const dir = path.resolve(opts.dir);
  mkdirSync(dir, { recursive: true });
  await reclaimStaleServer(dir);
  const port = opts.port ?? (await findFreePort());
  const binary = opts.binary ?? 'redis-server';
  const child = spawn(
    binary,
    [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--dir', dir,
      '--appendonly', 'yes',
      '--appendfsync', opts.appendfsync ?? 'everysec',
      // The queue's data is transient (a batch's rows live until the writer inserts them), so
      // the file grows by every batch while the data stays a few MB: with the default 64 MB
      // floor it was rewritten every few seconds under load, each rewrite a forked child
      // costing ~0.5 s of CPU (~10 ms per 1,000 spans in all). 512 MB rewrites it about every
      // half minute at 15,000 spans/s; the file on disk stays under about twice that.
      '--auto-aof-rewrite-min-size', AOF_REWRITE_MIN_SIZE,
      '--save', '',
      // BullMQ needs keys never evicted.
      '--maxmemory-policy', 'noeviction',
      '--daemonize', 'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await waitUntilReady(child, binary, port);
  writeFileSync(path.join(dir, PID_FILE), `${child.pid}\n`);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => {
          rmSync(path.join(dir, PID_FILE), { force: true });
          resolve();
        });
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

/**
 * Stops the redis-server named by the directory's pid file if it still runs there. A pid
 * is only trusted when that process's working directory is this directory (redis-server
 * changes into its --dir), so a recycled pid of another program is never signalled.
 * SIGTERM lets it write its append-only file; SIGKILL only if it does not exit in 10 s.
 */
async function reclaimStaleServer(dir: string): Promise<void> {
  const pidFile = path.join(dir, PID_FILE);
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return;
  }
  if (Number.isInteger(pid) && pid > 0 && runsIn(pid, dir)) {
    process.kill(pid, 'SIGTERM');
    if (!(await exited(pid, 10_000))) {
      process.kill(pid, 'SIGKILL');
      await exited(pid, 5_000);
    }
  }
  rmSync(pidFile, { force: true });
}

function runsIn(pid: number, dir: string): boolean {
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === realpathSync(dir);
  } catch {
    return false; // gone, or not ours to look at
  }
}

async function exited(pid: number, withinMs: number): Promise<boolean> {
  for (const until = Date.now() + withinMs; Date.now() < until; await sleep(50)) {
    if (!alive(pid)) return true;
  }
  return false;
}

/** Whether the process runs; a zombie (exited, not yet reaped by whoever adopted it) does not. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
