// A separate process that sends OTLP requests like a fleet of exporters, so the service's
// event loop is not shared with the load generator. Talks to the bench over IPC.
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { agentRequest } from './agent-spans.ts';

interface Go {
  /** OTLP/HTTP protobuf to `url`, or OTLP/gRPC to `grpcAddress` (the same protobuf bytes). */
  transport: 'http' | 'grpc';
  url: string;
  grpcAddress: string;
  key: string;
  concurrency: number;
  /** Send the pool once, or loop over it until this many seconds have passed. */
  seconds: number;
  /** When set, each connection sends at most this many requests per second (an offered load). */
  requestsPerSecond?: number;
}

const poolSize = Number(process.env.POOL_REQUESTS ?? 100);
const spansPerRequest = Number(process.env.SPANS_PER_REQUEST ?? 1000);
const pool = Array.from({ length: poolSize }, (_, i) => agentRequest(spansPerRequest, i + Number(process.env.SEED ?? 0)));
process.send!({ type: 'ready', requests: pool.length, spans: pool.reduce((n, r) => n + r.spans, 0), bytes: pool.reduce((n, r) => n + r.body.length, 0) });

/** Sends one request; true once acked, false when refused as retryable (503/429, RESOURCE_EXHAUSTED/UNAVAILABLE). */
type Send = (body: Uint8Array) => Promise<boolean>;

/**
 * node:http with a keep-alive agent, as the OpenTelemetry JS OTLP/HTTP exporters send: fetch
 * (undici) cost this process 3 to 5 ms of CPU per 600 KB request against 0.6 to 1.1 for
 * node:http, so the senders took CPU from the service that no real exporter would.
 */
function httpSender(go: Go): Send {
  const agent = new http.Agent({ keepAlive: true, maxSockets: go.concurrency });
  const target = `${go.url}/api/v1/traces/otlp`;
  return (body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        target,
        { method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': body.byteLength, 'x-api-key': go.key } },
        (res) => {
          res.resume();
          res.on('error', reject);
          res.on('end', () => {
            if (res.statusCode === 200) resolve(true);
            else if (res.statusCode === 503 || res.statusCode === 429) resolve(false);
            else reject(new Error(`unexpected status ${res.statusCode}`));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

// One channel per sender process, as an exporter keeps one: concurrent calls share its connection.
let channel: grpc.Client | undefined;
function grpcSender(go: Go): Send {
  channel ??= new grpc.Client(go.grpcAddress, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('x-api-key', go.key);
  return (body) =>
    new Promise((resolve, reject) =>
      channel!.makeUnaryRequest(
        '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => bytes,
        Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        metadata,
        (err) => {
          if (!err) resolve(true);
          else if (err.code === grpc.status.RESOURCE_EXHAUSTED || err.code === grpc.status.UNAVAILABLE) resolve(false);
          else reject(new Error(`unexpected status ${grpc.status[err.code]}: ${err.details}`));
        },
      ),
    );
}

process.on('message', async (go: Go) => {
  const send = go.transport === 'grpc' ? grpcSender(go) : httpSender(go);
  const latencies: number[] = [];
  let sentSpans = 0;
  let refused = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + go.seconds * 1000;
  const more = () => (go.seconds > 0 ? performance.now() < deadline : next < pool.length);
  const pace = go.requestsPerSecond ? 1000 / go.requestsPerSecond : 0;
  const worker = async () => {
    // Paced connections start at random points of their period, so that together they offer
    // an even load rather than a burst of every connection at once.
    let due = performance.now() + Math.random() * pace;
    while (more()) {
      if (pace > 0) {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        due += pace;
        if (!more()) break; // the phase ended while this connection waited its turn
      }
      const request = pool[next++ % pool.length]!;
      for (;;) {
        const t0 = performance.now();
        if (await send(request.body)) {
          latencies.push(performance.now() - t0);
          sentSpans += request.spans;
          break;
        }
        refused++;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  await Promise.all(Array.from({ length: go.concurrency }, worker));
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  process.send!({
    type: 'done',
    sentSpans,
    requests: latencies.length,
    refused,
    seconds: (performance.now() - started) / 1000,
    p50: pct(50),
    p99: pct(99),
  });
});
