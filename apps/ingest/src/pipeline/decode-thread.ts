import { readExport, type OtlpEncoding, type ReadExportFailure, type ReadExportResult, type SpanLimits } from '@aos/otlp';

/** One body for a decode thread, and what the main thread would otherwise pass to readExport. */
export interface DecodeTask {
  body: Uint8Array;
  encoding: OtlpEncoding;
  /** Receive time, nanoseconds since the epoch, as a decimal string (bigint does not cross threads). */
  nowUnixNano: string;
  limits: SpanLimits;
}

/** The task function of the decode pool's threads (loaded through decode-thread-boot.mjs). */
export default function decode(task: DecodeTask): ReadExportResult | ReadExportFailure {
  return readExport(task.body, task.encoding, { nowUnixNano: BigInt(task.nowUnixNano), limits: task.limits });
}
