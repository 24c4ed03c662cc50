/** The export record: one row per export a client started, with its outcome. */
export { EXPORT_KINDS, finishExport, listExports, recordExport } from './records.ts';
export type { ExportKind, ExportPage, ExportRecord, ExportStatus } from './records.ts';
