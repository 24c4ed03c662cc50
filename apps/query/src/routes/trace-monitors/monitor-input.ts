import * as v from 'valibot';
import {
  FINDING_SEVERITIES,
  MONITOR_OPERATORS,
  NO_DATA_RULES,
  conditionProblem,
} from '@aos/domain';
import { ApiError, parseOrThrow, type ErrorDetail } from '@aos/http';
import { MEASURE_NAMES, type ApiKeyRecord, type MonitorDefinition } from '@aos/storage';
import { groupNameSchema } from '../../filters/group-by.ts';
import { strictBodyMessage } from '../../request-helpers.ts';
import { TRACE_FILTER_PARAMS, TRACE_FILTER_REPEATED_PARAMS, savedFilterFields } from '../../filters/trace-filter.ts';

/** Longest window a monitor may look back over. */
export const MAX_WINDOW_SECONDS = 31 * 86_400;
/** Longest evaluation interval. */
export const MAX_INTERVAL_SECONDS = 86_400;

/** The trace filter fields a monitor's filter takes: all but the window and the project, which the monitor fixes. */
const FILTER_FIELDS = TRACE_FILTER_PARAMS.filter((p) => !['startTime', 'endTime', 'projectId'].includes(p));

const wholeSeconds = (what: string) => v.pipe(v.number(`${what} must be a number of seconds`), v.integer('must be a whole number of seconds'));
const finite = v.pipe(v.number('must be a number'), v.finite('must be a finite number'));
const filterValue = v.union([v.string(), v.number()], 'must be a string or a number');
const repeatedValue = v.union([v.string(), v.array(v.string())], 'must be a string or an array of strings');

const conditionSchema = v.strictObject(
  {
    operator: v.picklist(MONITOR_OPERATORS, `must be one of ${MONITOR_OPERATORS.join(', ')}`),
    threshold: finite,
    warningThreshold: v.optional(v.nullable(finite)),
    noData: v.optional(v.picklist(NO_DATA_RULES, `must be one of ${NO_DATA_RULES.join(', ')}`)),
  },
  strictBodyMessage,
);

const fields = {
  name: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  description: v.pipe(v.string('must be a string'), v.maxLength(2000, 'must be at most 2000 characters')),
  measure: v.picklist(MEASURE_NAMES, `must be one of ${MEASURE_NAMES.join(', ')}`),
  scoreName: v.nullable(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
  filter: v.strictObject(
    {
      ...Object.fromEntries(FILTER_FIELDS.map((f) => [f, v.optional(filterValue)])),
      ...Object.fromEntries(TRACE_FILTER_REPEATED_PARAMS.map((f) => [f, v.optional(repeatedValue)])),
    },
    strictBodyMessage,
  ),
  groupBy: v.nullable(groupNameSchema),
  windowSeconds: wholeSeconds('windowSeconds'),
  intervalSeconds: wholeSeconds('intervalSeconds'),
  condition: conditionSchema,
  severity: v.picklist(FINDING_SEVERITIES, `must be one of ${FINDING_SEVERITIES.join(', ')}`),
  enabled: v.boolean('must be true or false'),
  webhookUrl: v.nullable(
    v.pipe(
      v.string('must be a string'),
      v.url('must be a URL'),
      v.check((u) => /^https?:$/.test(new URL(u).protocol), 'must be an http or https URL'),
      v.maxLength(2000, 'must be at most 2000 characters'),
    ),
  ),
  webhookSecret: v.pipe(v.string('must be a string'), v.minLength(16, 'must be at least 16 characters'), v.maxLength(200, 'must be at most 200 characters')),
};

export const createSchema = v.strictObject(
  {
    name: fields.name,
    description: v.optional(fields.description),
    measure: fields.measure,
    scoreName: v.optional(fields.scoreName),
    filter: v.optional(fields.filter),
    groupBy: v.optional(fields.groupBy),
    windowSeconds: fields.windowSeconds,
    intervalSeconds: fields.intervalSeconds,
    condition: fields.condition,
    severity: v.optional(fields.severity),
    enabled: v.optional(fields.enabled),
    webhookUrl: v.optional(fields.webhookUrl),
    webhookSecret: v.optional(fields.webhookSecret),
  },
  strictBodyMessage,
);
type CreateBody = v.InferOutput<typeof createSchema>;

/** A draft for preview: a monitor body whose name may be left out. */
export const previewSchema = v.strictObject({ ...createSchema.entries, name: v.optional(fields.name) }, strictBodyMessage);

export const patchSchema = v.strictObject(
  {
    name: v.optional(fields.name),
    description: v.optional(fields.description),
    measure: v.optional(fields.measure),
    scoreName: v.optional(fields.scoreName),
    filter: v.optional(fields.filter),
    groupBy: v.optional(fields.groupBy),
    windowSeconds: v.optional(fields.windowSeconds),
    intervalSeconds: v.optional(fields.intervalSeconds),
    condition: v.optional(fields.condition),
    severity: v.optional(fields.severity),
    enabled: v.optional(fields.enabled),
    webhookUrl: v.optional(fields.webhookUrl),
    webhookSecret: v.optional(fields.webhookSecret),
  },
  strictBodyMessage,
);

export interface MonitorLimits {
  minIntervalSeconds: number;
}

export interface ParsedMonitor {
  definition: MonitorDefinition;
  /** '' when the monitor has no webhook. */
  webhookSecret: string;
}

/** A new monitor's definition, validated whole. */
export function parseCreateMonitor(body: unknown, key: ApiKeyRecord, limits: MonitorLimits): ParsedMonitor {
  const parsed = parseOrThrow(createSchema, body, 'body');
  return checked(definitionFrom(parsed, key), parsed.webhookSecret ?? '', limits);
}

/** A draft's definition for preview: what create would accept, without a webhook check. */
export function parsePreviewMonitor(body: unknown, key: ApiKeyRecord, limits: MonitorLimits): MonitorDefinition {
  const parsed = parseOrThrow(previewSchema, body, 'body');
  const definition = definitionFrom({ ...parsed, name: parsed.name ?? 'preview' }, key);
  checkDefinition(definition, limits);
  return definition;
}

/**
 * A changed monitor: the patch over the current definition, validated whole again (a
 * new warning threshold is judged against the kept threshold, and so on).
 */
export function parsePatchMonitor(body: unknown, current: ParsedMonitor, key: ApiKeyRecord, limits: MonitorLimits): ParsedMonitor {
  const patch = parseOrThrow(patchSchema, body, 'body');
  const { webhookSecret, filter, ...rest } = patch;
  const definition: MonitorDefinition = {
    ...current.definition,
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
    ...(filter !== undefined ? { filter: savedFilterFields(filter, key) } : {}),
    ...(patch.condition !== undefined ? { condition: { noData: 'no_data', warningThreshold: null, ...patch.condition } } : {}),
  } as MonitorDefinition;
  if (definition.measure !== 'score_mean') definition.scoreName = null;
  return checked(definition, webhookSecret ?? current.webhookSecret, limits);
}

function definitionFrom(body: Omit<CreateBody, 'webhookSecret'>, key: ApiKeyRecord): MonitorDefinition {
  return {
    name: body.name,
    description: body.description ?? '',
    measure: body.measure,
    scoreName: body.measure === 'score_mean' ? (body.scoreName ?? null) : null,
    filter: savedFilterFields(body.filter ?? {}, key),
    groupBy: body.groupBy ?? null,
    windowSeconds: body.windowSeconds,
    intervalSeconds: body.intervalSeconds,
    condition: { noData: 'no_data', warningThreshold: null, ...body.condition },
    severity: body.severity ?? 'high',
    enabled: body.enabled ?? true,
    webhookUrl: body.webhookUrl ?? null,
    muted: false,
    mutedUntil: null,
  };
}

function checked(definition: MonitorDefinition, webhookSecret: string, limits: MonitorLimits): ParsedMonitor {
  checkDefinition(definition, limits);
  if (definition.webhookUrl && !webhookSecret) {
    throw invalid([{ field: 'webhookSecret', message: 'required with webhookUrl: the secret deliveries are signed with (16 to 200 characters)' }]);
  }
  return { definition, webhookSecret: definition.webhookUrl ? webhookSecret : '' };
}

function checkDefinition(d: MonitorDefinition, limits: MonitorLimits): void {
  const problems: ErrorDetail[] = [];
  if (d.intervalSeconds < limits.minIntervalSeconds || d.intervalSeconds > MAX_INTERVAL_SECONDS) {
    problems.push({ field: 'intervalSeconds', message: `must be between ${limits.minIntervalSeconds} and ${MAX_INTERVAL_SECONDS}` });
  }
  if (d.windowSeconds < limits.minIntervalSeconds || d.windowSeconds > MAX_WINDOW_SECONDS) {
    problems.push({ field: 'windowSeconds', message: `must be between ${limits.minIntervalSeconds} and ${MAX_WINDOW_SECONDS} (31 days)` });
  }
  if (d.measure === 'score_mean' && !d.scoreName) problems.push({ field: 'scoreName', message: 'required with measure score_mean' });
  const condition = conditionProblem(d.condition);
  if (condition) problems.push({ field: `condition.${condition.field}`, message: condition.message });
  if (problems.length > 0) throw invalid(problems);
}

function invalid(details: ErrorDetail[]): ApiError {
  return new ApiError('invalid_request', `invalid body: ${details[0]!.field}: ${details[0]!.message}`, details);
}
