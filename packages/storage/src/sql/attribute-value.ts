import { PROMOTED_COLUMNS } from '@aos/domain';

/**
 * A span attribute's value wherever it is stored: in `attributes`, or, when its value was
 * promoted verbatim to a column (input, output, tool arguments, a message list), in the
 * column `attribute_refs` names. `key` is SQL for the key (a bound parameter), `missing`
 * the value when the span has no such attribute.
 */
export function attributeValueSql(key: string, missing: string): string {
  const promoted = PROMOTED_COLUMNS.map((column) => `attribute_refs[${key}] = '${column}', ${column}`).join(', ');
  return `if(mapContains(attributes, ${key}), attributes[${key}], multiIf(${promoted}, ${missing}))`;
}

/** Whether the span has the attribute, stored in place or promoted. */
export function attributeExistsSql(key: string): string {
  return `(mapContains(attributes, ${key}) OR mapContains(attribute_refs, ${key}))`;
}
