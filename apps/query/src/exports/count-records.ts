import type { ExportFormat } from '@aos/storage';

const QUOTE = 0x22;
const LF = 0x0a;

/**
 * Records in a run of whole CSV or JSON Lines records, as the engine writes them: a JSON
 * line never holds a raw line feed, and in CSV one only ends a record outside quotes
 * (a doubled quote inside a cell closes and reopens, which leaves the state right).
 */
export function countRecords(format: ExportFormat, data: Uint8Array): number {
  let records = 0;
  let at = 0;
  for (;;) {
    const lf = data.indexOf(LF, at);
    if (lf === -1) return records;
    const quote = format === 'csv' ? data.indexOf(QUOTE, at) : -1;
    if (quote === -1 || quote > lf) {
      records++;
      at = lf + 1;
      continue;
    }
    const closing = data.indexOf(QUOTE, quote + 1);
    if (closing === -1) return records; // an unterminated cell: no further record ends
    at = closing + 1;
  }
}
