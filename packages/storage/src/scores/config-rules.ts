// The rules of score configs, with no I/O: what makes a config valid, and whether a score
// fits one. Kept apart from the store so the scores code and the tests use them directly.

export const SCORE_DATA_TYPES = ['numeric', 'boolean', 'categorical'] as const;
export type ScoreDataType = (typeof SCORE_DATA_TYPES)[number];

/** The expected shape of a project's scores of one name. */
export interface ScoreConfig {
  id: string;
  projectId: string;
  name: string;
  dataType: ScoreDataType;
  /** Bounds of numeric scores, inclusive; null when open. */
  min: number | null;
  max: number | null;
  /** The allowed values of categorical scores; null for the other types. */
  categories: string[] | null;
  description: string;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
  /** Id of the API key that created it. */
  createdBy: string;
}

/** A config that breaks the rules (`invalid`) or the name uniqueness among active configs (`conflict`). */
export class ScoreConfigError extends Error {
  override name = 'ScoreConfigError';
  constructor(
    readonly reason: 'invalid' | 'conflict',
    message: string,
    readonly details: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
  }
}

const MAX_NAME = 200;
const MAX_DESCRIPTION = 2000;
const MAX_CATEGORIES = 100;
const MAX_CATEGORY = 200;

/**
 * Throws ScoreConfigError('invalid') listing every broken rule. Checked on the whole config,
 * so a PATCH is judged together with the fields it keeps (a new min against the stored max).
 */
export function throwIfInvalidConfig(config: ScoreConfig): void {
  const problems: Array<{ field: string; message: string }> = [];
  const problem = (field: string, message: string) => problems.push({ field, message });
  if (config.name.length === 0) problem('name', 'must not be empty');
  if (config.name.length > MAX_NAME) problem('name', `must be at most ${MAX_NAME} characters`);
  if (config.description.length > MAX_DESCRIPTION) problem('description', `must be at most ${MAX_DESCRIPTION} characters`);
  if (!SCORE_DATA_TYPES.includes(config.dataType)) problem('dataType', `must be one of ${SCORE_DATA_TYPES.join(', ')}`);
  for (const field of ['min', 'max'] as const) {
    const value = config[field];
    if (value === null) continue;
    if (config.dataType !== 'numeric') problem(field, 'only numeric configs take bounds');
    else if (!Number.isFinite(value)) problem(field, 'must be a finite number');
  }
  if (config.dataType === 'numeric' && config.min !== null && config.max !== null && config.min > config.max) {
    problem('min', `must not be greater than max (${config.max})`);
  }
  if (config.dataType !== 'categorical') {
    if (config.categories !== null) problem('categories', 'only categorical configs take categories');
  } else if (config.categories === null || config.categories.length === 0) {
    problem('categories', 'a categorical config needs at least one category');
  } else {
    const cats = config.categories;
    if (cats.length > MAX_CATEGORIES) problem('categories', `must have at most ${MAX_CATEGORIES} categories`);
    // Categories are kept exactly as given (scores must match them exactly), but a blank
    // one could never be told apart from a missing value.
    cats.forEach((c, i) => {
      if (c.trim().length === 0) problem(`categories.${i}`, 'must not be empty');
      else if (c.length > MAX_CATEGORY) problem(`categories.${i}`, `must be at most ${MAX_CATEGORY} characters`);
      else if (cats.indexOf(c) !== i) problem(`categories.${i}`, `repeats ${JSON.stringify(c)}`);
    });
  }
  const first = problems[0];
  if (first) throw new ScoreConfigError('invalid', `invalid score config: ${first.field}: ${first.message}`, problems);
}

/**
 * Why a score does not fit its config, or null when it does. The reason speaks of the
 * score only (callers prefix the config's name). Each type takes one kind of value:
 * numeric scores a finite number, boolean scores true or false (not 0/1: a score's own
 * data type follows its JSON value, so a 1 would be stored as a numeric score under a
 * boolean config), both without a stringValue; categorical scores a stringValue that is
 * exactly one of the categories, without a value. An archived config takes no new scores.
 */
export function checkScoreAgainstConfig(
  config: ScoreConfig,
  score: { value: number | boolean | null; stringValue: string | null },
): string | null {
  const { value, stringValue } = score;
  if (config.archived) return 'the config is archived and takes no new scores';
  switch (config.dataType) {
    case 'numeric': {
      if (stringValue !== null) return 'a numeric score takes a number as value, not a stringValue';
      if (typeof value !== 'number') return `a numeric score needs a number as value, got ${String(value)}`;
      if (!Number.isFinite(value)) return `value must be a finite number, got ${value}`;
      if (config.min !== null && value < config.min) return `value ${value} is below the minimum ${config.min}`;
      if (config.max !== null && value > config.max) return `value ${value} is above the maximum ${config.max}`;
      return null;
    }
    case 'boolean': {
      if (stringValue !== null) return 'a boolean score takes true or false as value, not a stringValue';
      return typeof value === 'boolean' ? null : `a boolean score needs true or false as value, got ${String(value)}`;
    }
    case 'categorical': {
      const categories = config.categories ?? [];
      if (value !== null) return 'a categorical score takes its category as stringValue, not a value';
      if (stringValue === null) return `a categorical score needs a stringValue, one of ${listed(categories)}`;
      if (!categories.includes(stringValue)) return `${JSON.stringify(stringValue)} is not one of the categories ${listed(categories)}`;
      return null;
    }
  }
}

/** A readable list of categories, cut short: a config may have a hundred. */
function listed(categories: string[]): string {
  const shown = categories.slice(0, 10).map((c) => JSON.stringify(c));
  return categories.length > shown.length ? `${shown.join(', ')}, … (${categories.length} in all)` : shown.join(', ');
}
