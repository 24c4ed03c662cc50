export { startSpanWriter } from './span-writer.ts';
export type { SpanWriter, SpanWriterDeps } from './span-writer.ts';
export { runTraceFlagsPass } from './trace-flags-processor.ts';
export type { TraceFlagsPassOptions, TraceFlagsPassResult } from './trace-flags-processor.ts';
