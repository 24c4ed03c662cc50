import { randomBytes } from 'node:crypto';
import { sendSpans } from '../../test/support/stored-rows.ts';

/**
 * An exporter that posts one 500-span trace per export in a loop, each under a new trace
 * id, and keeps the ids of those answered 200: only an acknowledged export is the service's
 * to keep. Refused or failed exports (503, a connection refused while the service is down)
 * are counted by answer, not retried, as the table asks what became of the acked ones.
 */
export interface Sender {
  acked: string[];
  /** Exports not acked, by answer: a status, or `no answer` (connection refused, 30 s without one). */
  notAcked: Map<string, number>;
  stop(): Promise<void>;
}

export const SPANS_PER_EXPORT = 500;

export function startSender(url: () => string, key: () => string, intervalMs: number): Sender {
  const prefix = randomBytes(8).toString('hex');
  let n = 0;
  let running = true;
  const sender: Sender = { acked: [], notAcked: new Map(), stop: async () => { running = false; await loop; } };
  const api = (pathname: string, init: RequestInit = {}) =>
    fetch(`${url()}${pathname}`, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-api-key': key() }, signal: AbortSignal.timeout(30_000) });
  const count = (outcome: string) => sender.notAcked.set(outcome, (sender.notAcked.get(outcome) ?? 0) + 1);
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const traceId = prefix + (n++).toString(16).padStart(16, '0');
      try {
        const res = await sendSpans({ api }, traceId, SPANS_PER_EXPORT);
        await res.arrayBuffer();
        if (res.status === 200) sender.acked.push(traceId);
        else count(String(res.status));
      } catch {
        count('no answer');
      }
      await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - (performance.now() - started))));
    }
  })();
  return sender;
}
