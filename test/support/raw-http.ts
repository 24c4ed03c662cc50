import http from 'node:http';
import net from 'node:net';
import { Agent, fetch } from 'undici';

/** What a raw client saw: the answer (if any), when it came, and when the server closed the connection. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Milliseconds from sending the headers to the answer's end. */
  ms: number;
}

export interface StalledRequest {
  /** The server's answer, read while the body is still unsent. */
  answer: Promise<RawAnswer>;
  /** Resolves with the milliseconds until the connection closed (from either side). */
  closed: Promise<number>;
  /** Drops the connection from the client side. */
  abort(): void;
}

/**
 * A POST (or `method`) through node:http that declares `declaredBytes`, sends `sentBytes` of
 * them and then stalls: the client a slow or stuck exporter is. Its own connection (no agent), so closing
 * it closes nothing else.
 */
export function stalledPost(url: string, pathname: string, headers: Record<string, string>, declaredBytes: number, sentBytes: number, method = 'POST'): StalledRequest {
  const started = Date.now();
  const req = http.request(`${url}${pathname}`, { method, agent: false, headers: { ...headers, 'content-length': String(declaredBytes) } });
  const closed = new Promise<number>((resolve) => req.on('socket', (socket) => socket.once('close', () => resolve(Date.now() - started))));
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: Date.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  // The unanswered promise of an aborted request must not fail the test run.
  answer.catch(() => {});
  req.flushHeaders();
  if (sentBytes > 0) req.write(Buffer.alloc(sentBytes, 0x0a));
  return { answer, closed, abort: () => req.destroy() };
}

/** Sends the first lines of a request's headers and never finishes them; resolves with what the server wrote back and when it closed. */
export function stalledHeaders(url: string, pathname: string): Promise<{ text: string; ms: number }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(`POST ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n`));
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('close', () => resolve({ text, ms: Date.now() - started }));
    socket.on('error', reject);
  });
}

export interface StreamedAnswer {
  status: number;
  headers: { get(name: string): string | null };
  /** The answer's body, parsed as JSON. */
  body: unknown;
  /** Body bytes fetch had pulled from the stream when the answer came (its buffers included). */
  pulledBytes: number;
}

/**
 * POSTs `totalBytes` of blanks through fetch from a stream pulled 1 MiB at a time, declared
 * with Content-Length or chunked, as an API client would send a large body: fetch reads an
 * answer that comes while it is still sending, and stops sending then.
 *
 * Each call has a connection of its own: undici's fetch (what Node's fetch is built on)
 * with an Agent of its own, destroyed once the answer is read. After a 413 to a body still
 * arriving, the server drains that connection for up to 500 ms and then closes it
 * (@hono/node-server). With one shared pool, fetch could hand that connection to the next
 * call, which then failed with "other side closed" (seen once in a loaded fresh-clone run).
 */
export async function streamedPost(url: string, headers: Record<string, string>, totalBytes: number, framing: 'content-length' | 'chunked'): Promise<StreamedAnswer> {
  let pulledBytes = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulledBytes >= totalBytes) return controller.close();
      const size = Math.min(1024 * 1024, totalBytes - pulledBytes);
      pulledBytes += size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  const declared = framing === 'content-length' ? { 'content-length': String(totalBytes) } : {};
  const connection = new Agent();
  try {
    const res = await fetch(url, { method: 'POST', body, duplex: 'half', headers: { ...headers, ...declared }, dispatcher: connection });
    const answered = pulledBytes;
    return { status: res.status, headers: res.headers, body: await res.json(), pulledBytes: answered };
  } finally {
    await connection.destroy();
  }
}
