// Which ingest stage a piece of CPU time belongs to: the one table that maps profile frames
// (by script URL) and thread names (chDB's native threads) to stages. Whatever no rule
// claims is counted as "other" and its largest sources are printed, so nothing is dropped.

export const STAGES = [
  'HTTP + body read',
  'admission (key, rate limit, queue depth)',
  'protobuf decode',
  'validation',
  'masking',
  'thread hand-off (postMessage, structured clone)',
  'enqueue + serialization (BullMQ JSON, Redis client)',
  'Redis (redis-server process)',
  "Redis append-only file rewrites (redis-server's forked children)",
  'dequeue + deserialization (BullMQ, Redis client, payload parse)',
  'normalization',
  'row encoding',
  'engine insert (JS call, libuv thread running chDB, chDB ThreadPool)',
  'engine queries (chDB Collector, Formatter, RuntimeData)',
  'background merges (chDB MergeMutate)',
  'engine housekeeping (other chDB threads)',
  'writer housekeeping (rollups, flags, other queues)',
  'garbage collection on JS threads',
  'V8 helper threads (parallel GC, compiler) and other Node threads',
  'bench harness (span-count polling, thread listing)',
  'senders (separate processes)',
  "CPU profiler (this breakdown's own sampling threads)",
  'other',
] as const;

export type Stage = (typeof STAGES)[number];

/** What a JS thread is, which decides the stage of code both sides of the queue run. */
export type JsRole = 'main' | 'decode' | 'writer' | 'other';

/** The role of a JS thread by its worker script URL ('main' for the main thread). */
export function jsRoleOf(thread: string): JsRole {
  if (thread === 'main') return 'main';
  if (/writer-thread/.test(thread)) return 'writer';
  // The decode pool's threads run tinypool's entry script, which loads decode-thread-boot.mjs.
  if (/tinypool|decode-thread/.test(thread)) return 'decode';
  return 'other';
}

/**
 * Samples that are a thread waiting, not working: V8 marks a thread idle in its event loop,
 * but a tinypool thread waits for its next task blocked in Atomics.wait inside a JS function.
 */
export function isWaiting(frame: { functionName: string; url: string }): boolean {
  return frame.functionName === '(idle)' || (frame.functionName === 'atomicsWaitLoop' && /\/tinypool\//.test(frame.url));
}

/** Queue code runs as enqueue on the ingest side (main thread) and as dequeue on a writer thread. */
const queueSide = (role: JsRole): Stage =>
  role === 'writer' ? 'dequeue + deserialization (BullMQ, Redis client, payload parse)' : 'enqueue + serialization (BullMQ JSON, Redis client)';

/**
 * Frame rules, first match wins for a frame; a sample goes to the innermost frame any rule
 * matches. Helpers used by several stages (valibot, Node's streams and sockets) have no rule,
 * so their time goes to the stage that called them.
 */
const FRAME_RULES: Array<{ url: RegExp; stage: Stage | ((role: JsRole) => Stage) }> = [
  { url: /\/bench\//, stage: 'bench harness (span-count polling, thread listing)' },
  { url: /\/packages\/masking\//, stage: 'masking' },
  { url: /\/packages\/otlp\/src\/(validate\/|schema)/, stage: 'validation' },
  { url: /\/packages\/otlp\/|\/protobufjs\//, stage: 'protobuf decode' },
  {
    url: /\/apps\/ingest\/src\/(pipeline\/admission|backpressure)|\/packages\/http\/src\/auth|\/packages\/storage\/src\/keys\/|\/rate-limiter-flexible\//,
    stage: 'admission (key, rate limit, queue depth)',
  },
  {
    // writer-threads/thread.ts's own frames are its job processor posting the encoded rows to the main thread.
    url: /\/apps\/ingest\/src\/pipeline\/decode-(pool|thread)|\/apps\/writer\/src\/writer-threads\/(pool|thread)\.ts|\/tinypool\/|node:internal\/worker/,
    stage: 'thread hand-off (postMessage, structured clone)',
  },
  { url: /\/apps\/ingest\/src\/pipeline\/enqueue/, stage: 'enqueue + serialization (BullMQ JSON, Redis client)' },
  // span-batches/job.ts is the writer's side of a job: reading its rows key, removing it.
  {
    url: /\/packages\/queue\/|\/apps\/writer\/src\/span-batches\/job|\/bullmq\/|\/ioredis\/|\/@ioredis\/|\/msgpackr\/|\/redis-errors\/|\/cluster-key-slot\/|\/denque\/|\/redis-parser\//,
    stage: queueSide,
  },
  // The one pass from export to rows (span-rows.ts, span-batch.ts) runs on a decode thread
  // (or inline for small bodies); a writer thread runs it only for jobs of the older shape.
  { url: /\/packages\/domain\/|\/apps\/writer\/src\/span-batches\/encoder|\/apps\/ingest\/src\/pipeline\/span-rows|\/packages\/storage\/src\/spans\/span-batch/, stage: 'normalization' },
  // The row encoders, both sides: decode and writer threads (and small bodies inline) encode
  // rows; on the main thread, the batcher's insert and the log join's re-encoded rows.
  {
    url: /\/packages\/storage\/src\/spans\/(writes|span-rowbinary|rowbinary-writer)/,
    stage: (role) => (role === 'main' ? 'engine insert (JS call, libuv thread running chDB, chDB ThreadPool)' : 'row encoding'),
  },
  {
    url: /\/apps\/writer\/src\/span-batches\/insert-batcher|\/packages\/storage\/|\/@clickhouse\/|\/chdb\//,
    stage: 'engine insert (JS call, libuv thread running chDB, chDB ThreadPool)',
  },
  { url: /\/apps\/writer\/src\//, stage: 'writer housekeeping (rollups, flags, other queues)' },
  { url: /\/apps\/ingest\/src\/|\/packages\/http\/|\/hono\/|\/@hono\/|node:_http_|node:http$/, stage: 'HTTP + body read' },
];

/** The stage of one frame, or undefined when no rule claims its script. */
export function stageOfFrame(url: string, role: JsRole): Stage | undefined {
  const rule = FRAME_RULES.find((r) => r.url.test(url));
  if (!rule) return undefined;
  return typeof rule.stage === 'function' ? rule.stage(role) : rule.stage;
}

/** chDB threads doing an insert's work: the global pool's threads, renamed while they parse rows or run a pipeline. */
const INSERT_THREADS = new Set(['ThreadPool', 'ChunkParser', 'Segmentator', 'QueryCompPipeEx', 'QueryPipelineEx', 'PipelineExecutor']);

/** chDB threads doing a query's work: formatting its output, updating the planner's data-flow statistics. */
const QUERY_THREADS = new Set(['Collector', 'Formatter', 'RuntimeData']);

/**
 * The stage of a native thread by its name. chDB (ClickHouse) names its pools' threads and
 * renames a pool thread for the job it runs. Observed during this bench's end-to-end phase:
 * "ThreadPool" (the global pool), "QueryCompPipeEx" (an insert's pipeline), "Segmentator" and
 * "ChunkParser" (parallel parsing of inserted rows), "MergeMutate" (background merges),
 * "Collector" (formatting a query's output), "RuntimeData" (the planner's data-flow
 * statistics), and BgSchPool, BgStrmSchPool, MemoryWorker, PoolDelayExec, Common, Fetch, Move
 * with next to no CPU. Node leaves its own threads named "node" (told apart in cpu-breakdown.ts).
 */
export function stageOfNativeThread(name: string): Stage {
  // V8 names the threads of a running CPU profiler "v8:ProfEvntProc" (one per profiled isolate).
  if (name.startsWith('v8:')) return "CPU profiler (this breakdown's own sampling threads)";
  if (INSERT_THREADS.has(name)) return 'engine insert (JS call, libuv thread running chDB, chDB ThreadPool)';
  if (QUERY_THREADS.has(name)) return 'engine queries (chDB Collector, Formatter, RuntimeData)';
  if (name === 'MergeMutate') return 'background merges (chDB MergeMutate)';
  return 'engine housekeeping (other chDB threads)';
}
