import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { slowClientServerOptions, type SlowClientLimits } from '@aos/runtime';

export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves a Hono app and resolves once it listens. */
export function listen(app: Hono, host: string, port: number, limits: SlowClientLimits): Promise<RunningHttpServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType;
    try {
      server = serve({ fetch: app.fetch, hostname: host, port, serverOptions: slowClientServerOptions(limits) }, (info: AddressInfo) => {
        resolve({
          url: `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`,
          port: info.port,
          close: () => new Promise<void>((done) => server.close(() => done())),
        });
      });
      server.once('error', reject);
    } catch (err) {
      reject(err);
    }
  });
}
