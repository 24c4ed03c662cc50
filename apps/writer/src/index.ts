export { startWriter } from './writer.ts';
export type { Writer, WriterDeps } from './writer.ts';
export { runTraceFlagsPass } from './trace-flags-pass.ts';
export type { TraceFlagsPassOptions, TraceFlagsPassResult } from './trace-flags-pass.ts';
export { reconcileSchedules, startMonitorProcessor } from './monitor-processor.ts';
export type { MonitorProcessor, MonitorProcessorDeps } from './monitor-processor.ts';
export { WEBHOOK_HEADERS, signWebhook, verifyWebhook } from './webhook-signature.ts';
