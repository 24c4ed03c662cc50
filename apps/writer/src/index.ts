export { startSpanWriter } from './span-writer.ts';
export type { SpanWriter, SpanWriterDeps } from './span-writer.ts';
