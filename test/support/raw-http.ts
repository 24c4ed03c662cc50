import http from 'node:http';
import net from 'node:net';

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
 * A POST through node:http that declares `declaredBytes`, sends `sentBytes` of them and then
 * stalls: the client a slow or stuck exporter is. Its own connection (no agent), so closing
 * it closes nothing else.
 */
export function stalledPost(url: string, pathname: string, headers: Record<string, string>, declaredBytes: number, sentBytes: number): StalledRequest {
  const started = Date.now();
  const req = http.request(`${url}${pathname}`, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(declaredBytes) } });
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

export interface FloodAnswer {
  status: number;
  headers: Record<string, string>;
  /** The answer's body, parsed as JSON. */
  body: unknown;
  /** Body bytes the server's socket took before it closed the connection (or the body ended). */
  sentBytes: number;
}

const FLOOD_CHUNK = Buffer.alloc(1024 * 1024, 0x20);

/**
 * Sends (POST unless told) a `totalBytes` body of spaces as fast as the server takes it, declared with
 * Content-Length or chunked, over a socket of its own, and reads the answer, which arrives
 * with `Connection: close` (or `keep-alive`, then the client closes). It stops sending when
 * the server closes the connection: `sentBytes` says how much of the body it had taken (the
 * part still in the kernel's socket buffers included).
 */
export function floodPost(
  url: string,
  pathname: string,
  headers: Record<string, string>,
  totalBytes: number,
  framing: 'content-length' | 'chunked',
  method = 'POST',
): Promise<FloodAnswer> {
  const { hostname, port } = new URL(url);
  const head = [
    `${method} ${pathname} HTTP/1.1`,
    `Host: ${hostname}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${totalBytes}`,
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let sent = 0;
    let answer = Buffer.alloc(0);
    const pump = () => {
      while (sent < totalBytes && socket.writable) {
        const piece = FLOOD_CHUNK.subarray(0, Math.min(FLOOD_CHUNK.length, totalBytes - sent));
        const framed = framing === 'chunked' ? [`${piece.length.toString(16)}\r\n`, piece, '\r\n'] : [piece];
        sent += piece.length;
        let room = true;
        for (const part of framed) room = socket.write(part);
        if (!room) return socket.once('drain', pump);
      }
      if (sent >= totalBytes && framing === 'chunked' && socket.writable) socket.write('0\r\n\r\n');
    };
    socket.on('connect', () => {
      socket.write(`${head}\r\n\r\n`);
      pump();
    });
    socket.on('data', (d: Buffer) => {
      answer = Buffer.concat([answer, d]);
      const parsed = parseAnswer(answer);
      // A server that keeps the connection open (it read the whole body) is done once its answer is whole.
      if (parsed && parsed.headers.connection !== 'close') socket.end();
    });
    // Writing after the server closed fails (EPIPE, ECONNRESET): the answer, already read, is what counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      const parsed = parseAnswer(answer);
      if (!parsed) return reject(new Error(`no whole answer before the connection closed (${sent} bytes sent): ${answer.toString('latin1').slice(0, 200)}`));
      resolve({ ...parsed, sentBytes: sent - socket.writableLength });
    });
  });
}

/** An HTTP/1.1 answer with a Content-Length body, once all of it is in `raw`. */
function parseAnswer(raw: Buffer): Omit<FloodAnswer, 'sentBytes'> | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const body = raw.subarray(end + 4);
  if (body.length < Number(headers['content-length'] ?? 0)) return null;
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body.toString('utf8')) };
}
