import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { format } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { ConfigError } from '@aos/config';
import type { Logger } from '@aos/log';
import { exportHandler, exportMethod, type OtlpGrpcService } from './export-handler.ts';

/** How long stop() lets in-flight calls finish (an export waits on Redis for at most ~15 s) before cancelling them. */
const GRPC_DRAIN_MS = 10_000;

export interface OtlpGrpcServerOptions {
  host: string;
  port: number;
  /** PEM files; null: plaintext HTTP/2. */
  tls: { certFile: string; keyFile: string } | null;
  /** Largest message after decompression; grpc-js refuses larger ones with RESOURCE_EXHAUSTED. */
  maxMessageBytes: number;
  /** The delay put in the RetryInfo of retryable refusals. */
  retryAfterSeconds: number;
  services: OtlpGrpcService[];
  logger: Logger;
  drainMs?: number;
}

export interface OtlpGrpcServer {
  /** host:port it listens on. */
  address: string;
  port: number;
  /** Stops taking calls, lets in-flight ones finish (up to the drain bound), then cancels the rest. */
  stop(): Promise<void>;
}

/** Serves OTLP services over gRPC; resolves once the port is bound. */
export async function startOtlpGrpcServer(opts: OtlpGrpcServerOptions): Promise<OtlpGrpcServer> {
  const credentials = serverCredentials(opts.tls);
  // grpc-js writes its own errors to stderr as plain text (process-wide); the service logs JSON lines.
  const grpcLog = (...args: unknown[]) => opts.logger.warn('grpc-js', { message: format(...args) });
  grpc.setLogger({ error: grpcLog, info: grpcLog, debug: grpcLog });
  // gzip and deflate requests are inflated by grpc-js, and this limit applies after inflating.
  const server = new grpc.Server({ 'grpc.max_receive_message_length': opts.maxMessageBytes });
  for (const service of opts.services) {
    server.addService({ Export: exportMethod(service.path) }, { Export: exportHandler(service, opts) });
  }
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${opts.port}`, credentials, (err, bound) =>
      err ? reject(new Error(`cannot listen for OTLP/gRPC on ${host}:${opts.port}: ${err.message}`)) : resolve(bound),
    ),
  );
  return { address: `${host}:${port}`, port, stop: () => drain(server, opts.drainMs ?? GRPC_DRAIN_MS) };
}

function drain(server: grpc.Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      // Cancelled calls were not acked: their exporters send them again.
      server.forceShutdown();
      resolve();
    }, drainMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** TLS from the configured files, checked now: a bad file stops the process at start, naming its setting. */
function serverCredentials(tls: OtlpGrpcServerOptions['tls']): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  const cert = readPem('OTLP_GRPC_TLS_CERT_FILE', tls.certFile);
  const key = readPem('OTLP_GRPC_TLS_KEY_FILE', tls.keyFile);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new ConfigError(`OTLP_GRPC_TLS_CERT_FILE, OTLP_GRPC_TLS_KEY_FILE: not a usable certificate and key: ${(err as Error).message}`);
  }
  return grpc.ServerCredentials.createSsl(null, [{ cert_chain: cert, private_key: key }], false);
}

function readPem(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError(`${setting}: cannot read ${file}: ${(err as Error).message}`);
  }
}
