// The test ClickHouse endpoint as a process of its own (chDB allows one process per data
// directory, so the service's processes reach it over HTTP, as they would a server).
//   CH_ENDPOINT_DATA_DIR  the engine's data directory (required)
//   CH_ENDPOINT_USERS     JSON {"name": {"password": "…", "readonly": true}}; default: `default` without password
//   CH_ENDPOINT_PORT      default 0 (a free port)
//   CH_ENDPOINT_TLS_CERT, CH_ENDPOINT_TLS_KEY  PEM files: serve https
//   CH_ENDPOINT_WRITE_LOG  a file: each write statement is appended as a JSON line with its settings
// Prints `clickhouse endpoint listening on <url>` once it accepts requests; exits on SIGTERM.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { openEngine } from './engine.ts';
import { createHandler, type EndpointUser } from './server.ts';

const env = process.env;
const dataDir = env.CH_ENDPOINT_DATA_DIR;
if (!dataDir) throw new Error('CH_ENDPOINT_DATA_DIR is required');
const users = new Map<string, EndpointUser>(Object.entries(JSON.parse(env.CH_ENDPOINT_USERS ?? '{"default":{"password":""}}') as Record<string, EndpointUser>));
const engine = openEngine(dataDir);
const handler = createHandler(engine, users, env.CH_ENDPOINT_WRITE_LOG);
const tls = env.CH_ENDPOINT_TLS_CERT && env.CH_ENDPOINT_TLS_KEY ? { cert: readFileSync(env.CH_ENDPOINT_TLS_CERT), key: readFileSync(env.CH_ENDPOINT_TLS_KEY) } : undefined;
const server = tls ? https.createServer(tls, (req, res) => void handler(req, res)) : http.createServer((req, res) => void handler(req, res));
server.listen(Number(env.CH_ENDPOINT_PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`clickhouse endpoint listening on ${tls ? 'https' : 'http'}://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  engine.close();
  process.exit(0);
});
