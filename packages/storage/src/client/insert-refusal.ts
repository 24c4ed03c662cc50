/**
 * Whether a failed insert is the rows' own fault. An acknowledged batch may only be given
 * up on when the engine refused the rows themselves (it cannot parse them, a value does not
 * fit its column, a value is too large): retrying those rows can never succeed. Anything
 * else (a disk that is full, read-only or not permitted, a server that does not answer, a
 * memory limit, a code this list does not know) is the world's fault and the batch waits
 * for the world to heal. The rule is kept as a closed list of what is known to be the
 * rows' fault, not as a list of outage messages: an unknown failure then costs a wait, not
 * acknowledged data.
 */

/** Why the engine refused rows: it could not read them, a value did not fit its type, or a value was too large. */
export type RefusalCategory = 'parse' | 'type' | 'size';

/** ClickHouse error codes (ErrorCodes.cpp; `errorCodeToName(code)` in any engine) that mean "these rows are wrong". */
const REFUSALS: ReadonlyMap<number, RefusalCategory> = new Map([
  // The input cannot be read as the format says.
  ...[
    3, // UNEXPECTED_END_OF_FILE
    6, // CANNOT_PARSE_TEXT
    7, // INCORRECT_NUMBER_OF_COLUMNS
    25, // CANNOT_PARSE_ESCAPE_SEQUENCE
    26, // CANNOT_PARSE_QUOTED_STRING
    27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
    32, // ATTEMPT_TO_READ_AFTER_EOF
    33, // CANNOT_READ_ALL_DATA
    38, // CANNOT_PARSE_DATE
    41, // CANNOT_PARSE_DATETIME
    72, // CANNOT_PARSE_NUMBER
    117, // INCORRECT_DATA
    130, // CANNOT_READ_ARRAY_FROM_TEXT
    376, // CANNOT_PARSE_UUID
    377, // ILLEGAL_SYNTAX_FOR_DATA_TYPE
    441, // CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING
    467, // CANNOT_PARSE_BOOL
    632, // UNEXPECTED_DATA_AFTER_PARSED_VALUE
    675, // CANNOT_PARSE_IPV4
    676, // CANNOT_PARSE_IPV6
  ].map((code) => [code, 'parse'] as const),
  // A value was read but does not fit its column.
  ...[
    53, // TYPE_MISMATCH
    70, // CANNOT_CONVERT_TYPE
    190, // SIZES_OF_ARRAYS_DONT_MATCH
    321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
    346, // CANNOT_CONVERT_CHARSET
    349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
    407, // DECIMAL_OVERFLOW
    469, // VIOLATED_CONSTRAINT
    691, // UNKNOWN_ELEMENT_OF_ENUM
  ].map((code) => [code, 'type'] as const),
  // A value is larger than the engine takes.
  ...[
    128, // TOO_LARGE_ARRAY_SIZE
    131, // TOO_LARGE_STRING_SIZE
  ].map((code) => [code, 'size'] as const),
]);

/**
 * The engine's refusal of rows, carried where only a message can travel (from the thread
 * that owns the storage connection to the one that took the job) with its category.
 */
export class RowsRefusedError extends Error {
  override name = 'RowsRefusedError';
  constructor(
    readonly category: RefusalCategory,
    message: string,
  ) {
    super(message);
  }
}

/** The category of the engine's refusal of rows, or null when the failure is not the rows' fault. */
export function rowsRefusal(err: unknown): RefusalCategory | null {
  if (err instanceof RowsRefusedError) return err.category;
  const code = clickhouseCodeOf(err);
  return code === null ? null : (REFUSALS.get(code) ?? null);
}

/**
 * The ClickHouse error code of a failure from either engine: chDB's insert error carries it
 * as `clickhouseCode`, @clickhouse/client's ClickHouseError as a numeric `code` string, and
 * chDB's query errors say it first in their message ("Code: 27. DB::Exception: …").
 */
export function clickhouseCodeOf(err: unknown): number | null {
  if (!(err instanceof Error)) return null;
  const { clickhouseCode, code } = err as { clickhouseCode?: unknown; code?: unknown };
  if (typeof clickhouseCode === 'number' && Number.isInteger(clickhouseCode)) return clickhouseCode;
  // Node's own codes are names (ECONNREFUSED); only ClickHouse's are numbers.
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  const stated = /^Code: (\d+)\. /.exec(err.message);
  return stated ? Number(stated[1]) : null;
}

/** Whether a failed write of acknowledged rows waits for storage to heal: always, unless the engine refused the rows themselves. */
export function writeFailureWaits(err: unknown): boolean {
  return rowsRefusal(err) === null;
}
