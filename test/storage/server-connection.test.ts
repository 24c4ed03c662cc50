import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageSettings } from '@aos/config';
import { isStorageUnavailable, openStorage, type Storage } from '@aos/storage';
import { startClickHouseEndpoint, type ClickHouseEndpoint } from '../support/clickhouse-http/start.ts';

// What a real server needs that the embedded engine does not: TLS with a custom CA,
// time-outs, reads retried after a connection fault, and startup errors that say what to fix.
const dir = mkdtempSync(path.join(tmpdir(), 'aos-server-conn-'));
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');
const writeLog = path.join(dir, 'writes.jsonl');
const USERS = { aos: { password: 'pw' }, reader: { password: 'r', readonly: true } };
let plain: ClickHouseEndpoint;
let tls: ClickHouseEndpoint;
const opened: Storage[] = [];
const servers: net.Server[] = [];

beforeAll(async () => {
  // A self-signed certificate for 127.0.0.1, made for this run.
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  [plain, tls] = await Promise.all([
    startClickHouseEndpoint({ dataDir: path.join(dir, 'plain'), users: USERS, writeLog }),
    startClickHouseEndpoint({ dataDir: path.join(dir, 'tls'), users: USERS, tls: { certFile, keyFile } }),
  ]);
});
afterAll(async () => {
  for (const storage of opened) await storage.close();
  for (const server of servers) server.close();
  await Promise.all([plain?.stop(), tls?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

async function open(env: Record<string, string>): Promise<Storage> {
  const storage = await openStorage(storageSettings({ CLICKHOUSE_USER: 'aos', CLICKHOUSE_PASSWORD: 'pw', ...env }));
  opened.push(storage);
  return storage;
}

async function openError(env: Record<string, string>): Promise<Error> {
  return open(env).then(
    () => {
      throw new Error('opened');
    },
    (err: Error) => err,
  );
}

async function selectOne(storage: Storage): Promise<unknown> {
  return (await storage.client.query({ query: 'SELECT 1 AS one', format: 'JSONEachRow' })).json();
}

/** A TCP server on a free port: `handle` gets every connection. */
async function tcpServer(handle: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** A proxy to the plain endpoint that drops the next `drop` connections it accepts, as a server restarting or a balancer resetting would. */
async function flakyProxy() {
  const state = { drop: 0, dropped: 0 };
  const target = new URL(plain.url);
  const port = await tcpServer((socket) => {
    if (state.drop > 0) {
      state.drop -= 1;
      state.dropped += 1;
      socket.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  return { url: `http://127.0.0.1:${port}`, state };
}

describe('ClickHouse server connection', () => {
  it('sends every write with async inserts off and waited for, so a profile with async_insert=1 cannot acknowledge rows that are in no part yet', async () => {
    const storage = await open({ CLICKHOUSE_URL: plain.url });
    await storage.client.command({ query: 'CREATE TABLE IF NOT EXISTS sync_probe (n UInt8) ENGINE = MergeTree ORDER BY n' });
    // The writer's insert of encoded rows, a derived table's insert of objects, and an insert from a select.
    await storage.insertRows('sync_probe', ['n'], 'JSONEachRow', '{"n":1}\n');
    await storage.client.insert({ table: 'sync_probe', values: [{ n: 2 }], format: 'JSONEachRow' });
    await storage.client.command({ query: 'INSERT INTO sync_probe SELECT 3' });
    const writes = readFileSync(writeLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { statement: string; settings: Record<string, string> })
      .filter((w) => /^INSERT INTO sync_probe/.test(w.statement));
    expect(writes).toHaveLength(3);
    for (const write of writes) expect(write.settings).toMatchObject({ async_insert: '0', wait_for_async_insert: '1' });
    // Not on a cluster: no Distributed table to insert through.
    for (const write of writes) expect(write.settings).not.toHaveProperty('distributed_foreground_insert');
  });

  it('speaks TLS to a server whose certificate CLICKHOUSE_CA_CERT signs, and says so when it is missing', async () => {
    const storage = await open({ CLICKHOUSE_URL: tls.url, CLICKHOUSE_CA_CERT: certFile });
    expect(await selectOne(storage)).toEqual([{ one: 1 }]);
    const err = await openError({ CLICKHOUSE_URL: tls.url });
    expect(err.message).toMatch(/cannot verify the TLS certificate .*CLICKHOUSE_CA_CERT/);
  });

  it('fails at start with an error that names what to fix', async () => {
    const closedPort = await tcpServer(() => {});
    servers.at(-1)!.close();
    expect((await openError({ CLICKHOUSE_URL: `http://127.0.0.1:${closedPort}` })).message).toMatch(/cannot reach ClickHouse at http:\/\/127\.0\.0\.1:\d+: .*check CLICKHOUSE_URL/);
    expect((await openError({ CLICKHOUSE_URL: plain.url, CLICKHOUSE_PASSWORD: 'wrong' })).message).toMatch(/refused user 'aos'.*CLICKHOUSE_USER and CLICKHOUSE_PASSWORD/);
    expect((await openError({ CLICKHOUSE_URL: plain.url, CLICKHOUSE_USER: 'reader', CLICKHOUSE_PASSWORD: 'r' })).message).toMatch(/user 'reader' lacks the rights .*readonly mode/);
  });

  it('gives up connecting after CLICKHOUSE_CONNECT_TIMEOUT_MS (a server that never completes the TLS handshake)', async () => {
    const silent = await tcpServer(() => {});
    const started = Date.now();
    const err = await openError({ CLICKHOUSE_URL: `https://127.0.0.1:${silent}`, CLICKHOUSE_CONNECT_TIMEOUT_MS: '300' });
    expect(err.message).toMatch(/could not connect within 300 ms \(CLICKHOUSE_CONNECT_TIMEOUT_MS\)/);
    expect(isStorageUnavailable(err)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('fails a request the server does not answer within CLICKHOUSE_REQUEST_TIMEOUT_MS, as unavailable storage, without retrying it', async () => {
    const storage = await open({ CLICKHOUSE_URL: plain.url, CLICKHOUSE_REQUEST_TIMEOUT_MS: '300' });
    const started = Date.now();
    const err = await storage.client.query({ query: 'SELECT sleep(1)' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isStorageUnavailable(err)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('sends a read again after a dropped connection, up to CLICKHOUSE_READ_RETRIES, and never a write', async () => {
    const proxy = await flakyProxy();
    const storage = await open({ CLICKHOUSE_URL: proxy.url });
    await storage.client.command({ query: 'CREATE TABLE IF NOT EXISTS retry_probe (n UInt8) ENGINE = MergeTree ORDER BY n' });
    await storage.client.close();
    const reading = await open({ CLICKHOUSE_URL: proxy.url });
    proxy.state.drop = 2;
    expect(await selectOne(reading)).toEqual([{ one: 1 }]);
    expect(proxy.state.dropped).toBe(2);

    const noRetries = await open({ CLICKHOUSE_URL: proxy.url, CLICKHOUSE_READ_RETRIES: '0' });
    proxy.state.drop = 1;
    expect(isStorageUnavailable(await selectOne(noRetries).catch((e: Error) => e))).toBe(true);

    const writing = await open({ CLICKHOUSE_URL: proxy.url });
    proxy.state.drop = 1;
    const failed = await writing.insertRows('retry_probe', ['n'], 'JSONEachRow', '{"n":1}\n').catch((e: Error) => e);
    expect(isStorageUnavailable(failed)).toBe(true);
    const counted = await (await reading.client.query({ query: 'SELECT count() AS rows FROM retry_probe', format: 'JSONEachRow' })).json<{ rows: string }>();
    expect(counted).toEqual([{ rows: '0' }]); // 64-bit counts come quoted (SESSION_SETTINGS)
  });
});
