export { startSpanWriter } from './span-writer.ts';
export type { SpanWriter, SpanWriterDeps } from './span-writer.ts';
export { runTraceFlagsPass } from './trace-flags-processor.ts';
export type { TraceFlagsPassOptions, TraceFlagsPassResult } from './trace-flags-processor.ts';
export { reconcileSchedules, startMonitorWorker } from './monitor-processor.ts';
export type { MonitorWorker, MonitorWorkerDeps } from './monitor-processor.ts';
export { WEBHOOK_HEADERS, signWebhook, verifyWebhook } from './webhook-signature.ts';
