import * as v from 'valibot';
import { DIMENSION_KEY_PATTERN } from '@aos/domain';
import { GROUP_FIELDS, type GroupField, type GroupName } from '@aos/storage';

const GROUP_NAMES = Object.keys(GROUP_FIELDS) as [GroupField, ...GroupField[]];

/** A grouping as clients write it: a group field, or `dim:<key>` for one of the project's dimensions. */
export const groupNameSchema = v.pipe(
  v.string(),
  v.check(
    (s) => (GROUP_NAMES as string[]).includes(s) || (s.startsWith('dim:') && DIMENSION_KEY_PATTERN.test(s.slice(4))),
    `must be one of ${GROUP_NAMES.join(', ')}, or dim:<dimension key>`,
  ),
  v.transform((s) => s as GroupName),
);

/** The dimension key of a `dim:<key>` grouping, to check it is one of the project's. */
export function dimensionOfGroup(name: GroupName | null | undefined): string | undefined {
  return name?.startsWith('dim:') ? name.slice(4) : undefined;
}
