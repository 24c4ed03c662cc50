import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EndpointUser } from './server.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ClickHouseEndpoint {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface EndpointOptions {
  dataDir: string;
  users?: Record<string, EndpointUser>;
  tls?: { certFile: string; keyFile: string };
  /** A file where every write statement is recorded with the settings it ran with (JSON lines). */
  writeLog?: string;
}

/** Starts the endpoint in its own process and resolves once it listens. */
export function startClickHouseEndpoint(options: EndpointOptions): Promise<ClickHouseEndpoint> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      CH_ENDPOINT_DATA_DIR: path.resolve(options.dataDir),
      ...(options.users ? { CH_ENDPOINT_USERS: JSON.stringify(options.users) } : {}),
      ...(options.tls ? { CH_ENDPOINT_TLS_CERT: options.tls.certFile, CH_ENDPOINT_TLS_KEY: options.tls.keyFile } : {}),
      ...(options.writeLog ? { CH_ENDPOINT_WRITE_LOG: options.writeLog } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`clickhouse endpoint did not start:\n${output}`)), 60_000);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const match = /listening on (https?:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        url: match[1]!,
        process: child,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`clickhouse endpoint exited with ${code}:\n${output}`));
    });
  });
}
