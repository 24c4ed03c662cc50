// The `table` group of the engine write benchmark (issue 33): what each part of the spans
// table's definition, and each setting of the insert, makes the embedded engine pay per
// inserted row. Every variant is the migrated table (its copy, feeding copies of the tables
// of spans' materialized views through copies of the views, as spans does) written as the
// writer writes it (Storage.insertRows), with one part taken away or changed, so its
// difference from the first is that part's price.

/** The text columns that carry most of a row's bytes, with the ZSTD(3) the migrations give them. */
export const HOT_COLUMNS = ['input', 'output', 'input_messages', 'output_messages', 'system_instructions', 'tool_arguments', 'events', 'links'] as const;
export const HOT_MAPS = ['attributes', 'resource_attributes'] as const;
/** The MATERIALIZED previews of migration 0010, ZSTD(3) as well. */
export const PREVIEWS = { input_preview: 'leftUTF8(input, 1000)', output_preview: 'leftUTF8(output, 1000)' } as const;

/** A variant of the table group: ALTERs on the copy, session settings around its inserts, whether the view feeds it. */
export interface TableVariant {
  name: string;
  alter: string[];
  settings?: Record<string, number>;
  /** Settings in the insert statement itself, over the service's own (which win over the session's). */
  insertSettings?: Record<string, number>;
  /** Materialized views on spans left out (every other variant feeds a copy of each). */
  withoutViews?: readonly string[];
}

/** The codec of every ZSTD(3) column of spans (hot columns, maps and previews) changed to `codec`. */
export function codecAlters(codec: string): string[] {
  return [
    ...HOT_COLUMNS.map((col) => `MODIFY COLUMN ${col} String CODEC(${codec})`),
    ...HOT_MAPS.map((col) => `MODIFY COLUMN ${col} Map(LowCardinality(String), String) CODEC(${codec})`),
    ...Object.entries(PREVIEWS).map(([col, expr]) => `MODIFY COLUMN ${col} String MATERIALIZED ${expr} CODEC(${codec})`),
  ];
}

/** The materialized views the migrations put on spans (0011, 0020, 0022, 0025); the bench checks the engine has exactly these. */
export const SPANS_VIEWS = ['span_hour_writes_mv', 'trace_hours_mv', 'trace_starts_mv', 'trace_writes_mv'];

/** The variants, the migrated table first; `indexes`: the skip indexes spans has. */
export function tableVariants(indexes: readonly string[]): TableVariant[] {
  return [
    { name: 'spans as migrated (4 skip indexes, previews, ZSTD(3), its materialized views)', alter: [] },
    ...SPANS_VIEWS.map((view) => ({ name: `without ${view}`, alter: [], withoutViews: [view] })),
    { name: 'without any materialized view', alter: [], withoutViews: SPANS_VIEWS },
    { name: 'without the skip indexes', alter: indexes.map((i) => `DROP INDEX ${i}`) },
    { name: 'without the MATERIALIZED previews', alter: Object.keys(PREVIEWS).map((c) => `DROP COLUMN ${c}`) },
    { name: 'ZSTD(1) instead of ZSTD(3)', alter: codecAlters('ZSTD(1)') },
    { name: 'LZ4 instead of ZSTD(3)', alter: codecAlters('LZ4') },
    { name: 'optimize_on_insert=1 (the merge pass at insert, before row-insert-settings.ts)', alter: [], insertSettings: { optimize_on_insert: 1 } },
    { name: 'materialize_skip_indexes_on_insert=0', alter: [], settings: { materialize_skip_indexes_on_insert: 0 } },
    { name: 'wide inserted parts (min_bytes_for_wide_part=10 MiB, the default before 0026)', alter: [`MODIFY SETTING min_bytes_for_wide_part = ${10 * 2 ** 20}`] },
    { name: 'no sparse columns (ratio_of_defaults_for_sparse_serialization=1)', alter: ['MODIFY SETTING ratio_of_defaults_for_sparse_serialization = 1'] },
    // The first variant again, last in each round: how far the turn order alone moves a figure.
    { name: 'spans as migrated, again (last in each round)', alter: [] },
  ];
}
