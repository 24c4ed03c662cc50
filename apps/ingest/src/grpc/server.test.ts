import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { ConfigError } from '@aos/config';
import { silentLogger } from '@aos/log';
import { IngestRefusal, type RefusalReason } from '../pipeline/refusal.ts';
import type { OtlpGrpcService } from './export-handler.ts';
import { startOtlpGrpcServer, type OtlpGrpcServer, type OtlpGrpcServerOptions } from './server.ts';

const PATH = '/test.v1.ExportService/Export';
const TESTDATA = fileURLToPath(new URL('./testdata/', import.meta.url));
const tls = { certFile: path.join(TESTDATA, 'cert.pem'), keyFile: path.join(TESTDATA, 'key.pem') };

const servers: OtlpGrpcServer[] = [];
const clients: grpc.Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) await server.stop();
});

/** A service whose exports wait until the test lets them finish. */
function heldService() {
  let entered!: () => void;
  let release!: () => void;
  const service: OtlpGrpcService = {
    path: PATH,
    export: async () => {
      entered();
      await new Promise<void>((r) => (release = r));
      return new Uint8Array([8, 1]);
    },
  };
  return { service, entered: new Promise<void>((r) => (entered = r)), release: () => release() };
}

async function start(services: OtlpGrpcService[], overrides: Partial<OtlpGrpcServerOptions> = {}) {
  const server = await startOtlpGrpcServer({
    host: '127.0.0.1',
    port: 0,
    tls: null,
    maxMessageBytes: 1024,
    retryAfterSeconds: 5,
    services,
    logger: silentLogger,
    ...overrides,
  });
  servers.push(server);
  return server;
}

function call(address: string, credentials = grpc.credentials.createInsecure()) {
  const client = new grpc.Client(address, credentials);
  clients.push(client);
  return new Promise<{ code: grpc.status; details: string; response?: Buffer; metadata?: grpc.Metadata }>((resolve) =>
    client.makeUnaryRequest(PATH, (b: Buffer) => b, (b: Buffer) => b, Buffer.from('request'), new grpc.Metadata(), (err, response) =>
      resolve(err ? { code: err.code, details: err.details, metadata: err.metadata } : { code: grpc.status.OK, details: '', response }),
    ),
  );
}

describe('the OTLP/gRPC server', () => {
  it('lets an in-flight export finish when stopped, and takes no new ones meanwhile', async () => {
    const held = heldService();
    const server = await start([held.service]);
    const inFlight = call(server.address);
    await held.entered;
    let stopped = false;
    const stopping = server.stop().then(() => (stopped = true));
    expect((await call(server.address)).code).toBe(grpc.status.UNAVAILABLE);
    expect(stopped).toBe(false);
    held.release();
    const answer = await inFlight;
    expect(answer.code).toBe(grpc.status.OK);
    expect([...answer.response!]).toEqual([8, 1]);
    await stopping;
  });

  it('cancels exports still running once the drain bound has passed', async () => {
    const held = heldService();
    const server = await start([held.service], { drainMs: 100 });
    const inFlight = call(server.address);
    await held.entered;
    await server.stop();
    // Not acked: the exporter sends it again.
    expect((await inFlight).code).not.toBe(grpc.status.OK);
    held.release();
  });

  it('answers each refusal with its status, and a RetryInfo for those worth retrying', async () => {
    const expected: Record<RefusalReason, [grpc.status, number | null]> = {
      unauthenticated: [grpc.status.UNAUTHENTICATED, null],
      permission_denied: [grpc.status.PERMISSION_DENIED, null],
      unsupported_format: [grpc.status.INVALID_ARGUMENT, null],
      invalid: [grpc.status.INVALID_ARGUMENT, null],
      too_large: [grpc.status.RESOURCE_EXHAUSTED, null],
      overloaded: [grpc.status.RESOURCE_EXHAUSTED, 5],
      unavailable: [grpc.status.UNAVAILABLE, 5],
      aborted: [grpc.status.CANCELLED, null],
    };
    for (const [reason, [code, retry]] of Object.entries(expected)) {
      const server = await start([{ path: PATH, export: () => Promise.reject(new IngestRefusal(reason as RefusalReason, `refused: ${reason}`)) }]);
      const answer = await call(server.address);
      expect([reason, grpc.status[answer.code]]).toEqual([reason, grpc.status[code]]);
      expect(answer.details).toBe(`refused: ${reason}`);
      const [details] = answer.metadata!.get('grpc-status-details-bin');
      // google.rpc.Status: code (1) = the call's, then the RetryInfo's delay in seconds at the very end.
      if (retry === null) expect(details).toBeUndefined();
      else expect([(details as Buffer)[0], (details as Buffer)[1], (details as Buffer).at(-1)]).toEqual([0x08, code, retry]);
    }
  });

  it('answers INTERNAL, without the cause, when the pipeline fails unexpectedly', async () => {
    const server = await start([{ path: PATH, export: () => Promise.reject(new Error('secret internals')) }]);
    const answer = await call(server.address);
    expect(answer.code).toBe(grpc.status.INTERNAL);
    expect(answer.details).not.toMatch(/secret/);
  });

  it('serves TLS from certificate files', async () => {
    const server = await start([{ path: PATH, export: async () => new Uint8Array(0) }], { tls });
    expect((await call(server.address, grpc.credentials.createSsl(readFileSync(tls.certFile)))).code).toBe(grpc.status.OK);
    expect((await call(server.address)).code).toBe(grpc.status.UNAVAILABLE);
  });

  it('refuses at start TLS files it cannot use, naming the setting', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aos-grpc-tls-'));
    try {
      await expect(start([], { tls: { ...tls, certFile: path.join(dir, 'missing.pem') } })).rejects.toThrow(
        expect.objectContaining({ constructor: ConfigError, message: expect.stringMatching(/^OTLP_GRPC_TLS_CERT_FILE: cannot read/) }),
      );
      writeFileSync(path.join(dir, 'not-a-key.pem'), 'not a key');
      await expect(start([], { tls: { ...tls, keyFile: path.join(dir, 'not-a-key.pem') } })).rejects.toThrow(/OTLP_GRPC_TLS_KEY_FILE: not a usable certificate and key/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails to start on a port that is taken', async () => {
    const first = await start([]);
    await expect(start([], { port: first.port })).rejects.toThrow(`cannot listen for OTLP/gRPC on 127.0.0.1:${first.port}`);
  });
});
