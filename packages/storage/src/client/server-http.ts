import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { ClickHouseError } from '@clickhouse/client';

/**
 * The HTTP(S) agent for a ClickHouse server: keep-alive sockets, the custom CA of a
 * self-signed or private server certificate, and a connect time-out, which the client
 * does not have (its request_timeout counts inactivity of an open socket).
 */
export function serverAgent(options: { https: boolean; ca: string | undefined; connectTimeoutMs: number; maxSockets: number }): http.Agent {
  const base = { keepAlive: true, maxSockets: options.maxSockets };
  const agent = options.https ? new https.Agent({ ...base, ...(options.ca === undefined ? {} : { ca: options.ca }) }) : new http.Agent(base);
  const connected = options.https ? 'secureConnect' : 'connect';
  const createConnection = agent.createConnection.bind(agent) as (opts: object, cb?: (err: Error | null, socket: Duplex) => void) => Duplex;
  // A socket that has not connected (and finished its TLS handshake) in time is destroyed
  // with ETIMEDOUT, which storage counts as unreachable.
  (agent as { createConnection: typeof createConnection }).createConnection = (opts, cb) => {
    const socket = createConnection(opts, cb);
    const timer = setTimeout(() => {
      const error = Object.assign(new Error(`could not connect within ${options.connectTimeoutMs} ms (CLICKHOUSE_CONNECT_TIMEOUT_MS)`), { code: 'ETIMEDOUT' });
      socket.destroy(error);
    }, options.connectTimeoutMs);
    socket.once(connected, () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  };
  return agent;
}

/**
 * Runs an idempotent read again after a connection fault (refused, reset, a keep-alive
 * socket the server had closed), up to `retries` times with a growing pause. A time-out
 * is not retried: a server too slow for one attempt gains nothing from a second.
 */
export async function retryRead<T>(read: () => Promise<T>, retries: number, isConnectionFault: (err: unknown) => boolean): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (attempt >= retries || !isConnectionFault(err) || /Timeout error|within \d+ ms/.test((err as Error).message)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * 4 ** attempt));
    }
  }
}

/** What a failed first statement means for the operator, naming the setting to look at. */
export function describeStartupFailure(err: unknown, settings: { url: string; user: string }): string {
  const message = (err as Error).message;
  if (err instanceof ClickHouseError) {
    if (err.type === 'AUTHENTICATION_FAILED' || err.type === 'REQUIRED_PASSWORD') {
      return `ClickHouse at ${settings.url} refused user '${settings.user}': wrong password or no such user (check CLICKHOUSE_USER and CLICKHOUSE_PASSWORD)`;
    }
    if (err.type === 'ACCESS_DENIED' || err.type === 'READONLY') {
      return `ClickHouse user '${settings.user}' lacks the rights the service needs (create the database and its tables, read and write them): ${message.trim()}`;
    }
    return `ClickHouse at ${settings.url} failed the first statement: ${message.trim()}`;
  }
  if (/certificate|self.signed|CERT_/i.test(message) || /CERT|SELF_SIGNED/.test(String((err as NodeJS.ErrnoException).code))) {
    return `cannot verify the TLS certificate of ClickHouse at ${settings.url}: ${message} (set CLICKHOUSE_CA_CERT to the PEM file of its CA)`;
  }
  return `cannot reach ClickHouse at ${settings.url}: ${message} (check CLICKHOUSE_URL and that the server is up)`;
}
