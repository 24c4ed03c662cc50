// Sampled CPU profiles of every JavaScript thread of this process: the main thread through an
// in-process inspector session, each worker thread (decode pool, writer threads) through the
// same session's NodeWorker domain, so the product code needs no hook. Each worker is asked
// for its OS thread id, so its profile can be matched to its CPU time in /proc.
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';

export interface JsThreadProfile {
  /** 'main' for the main thread, else the worker's script URL (which says which pool it belongs to). */
  thread: string;
  /** OS thread id, the key of /proc/self/task. */
  tid: number;
  /** Absent for a thread left unprofiled: a sampler costs CPU even on a thread that stays idle. */
  profile?: Profiler.Profile;
}

interface WorkerSession {
  sessionId: string;
  url: string;
}

interface WorkerReply {
  id: number;
  result?: unknown;
  error?: { message: string };
}

/** Starts sampling the main thread and each worker `profiled` picks (by script URL) now; stop() returns every JS thread. */
export async function startJsThreadProfiles(
  samplingIntervalUs: number,
  profiled: (workerUrl: string) => boolean,
): Promise<{ stop(): Promise<JsThreadProfile[]> }> {
  const session = new Session();
  session.connect();
  const workers: WorkerSession[] = [];
  const waiting = new Map<number, (reply: WorkerReply) => void>();
  let nextId = 0;
  session.on('NodeWorker.attachedToWorker', ({ params }) => workers.push({ sessionId: params.sessionId, url: params.workerInfo.url }));
  session.on('NodeWorker.receivedMessageFromWorker', ({ params }) => {
    const reply = JSON.parse(params.message) as WorkerReply;
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const inWorker = async <T>(worker: WorkerSession, method: string, params: object = {}): Promise<T> => {
    const id = ++nextId;
    const replied = new Promise<WorkerReply>((resolve) => waiting.set(id, resolve));
    await session.post('NodeWorker.sendMessageToWorker', { sessionId: worker.sessionId, message: JSON.stringify({ id, method, params }) });
    const reply = await replied;
    if (reply.error) throw new Error(`${method} in worker ${worker.url}: ${reply.error.message}`);
    return reply.result as T;
  };

  // The workers already running are announced as soon as the domain is enabled.
  await session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  await new Promise((resolve) => setTimeout(resolve, 50));
  // A worker started later (a writer thread replaced after a crash) is left out: its time shows as a Node thread.
  const known = [...workers];
  const tids = await Promise.all(
    known.map(async (worker) => {
      const answer = await inWorker<{ result: { value: string } }>(worker, 'Runtime.evaluate', {
        expression: "process.getBuiltinModule('node:fs').readlinkSync('/proc/thread-self')",
      });
      // "<pid>/task/<tid>"
      return Number(answer.result.value.split('/').pop());
    }),
  );
  const sampled = known.filter((w) => profiled(w.url));
  for (const target of [...sampled, undefined]) {
    const call = (method: string, params: object = {}) => (target ? inWorker(target, method, params) : session.post(method, params));
    await call('Profiler.enable');
    await call('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
    await call('Profiler.start');
  }

  return {
    async stop() {
      const main: JsThreadProfile = { thread: 'main', tid: process.pid, profile: (await session.post('Profiler.stop')).profile };
      const others = await Promise.all(
        known.map(async (worker, i) => ({
          thread: worker.url,
          tid: tids[i]!,
          ...(sampled.includes(worker) ? { profile: (await inWorker<{ profile: Profiler.Profile }>(worker, 'Profiler.stop')).profile } : {}),
        })),
      );
      for (const worker of known) await session.post('NodeWorker.detach', { sessionId: worker.sessionId });
      await session.post('NodeWorker.disable');
      session.disconnect();
      return [main, ...others];
    },
  };
}
