import * as v from 'valibot';
import { SCORE_SOURCES } from '@aos/storage';

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const lowerHex = (pattern: RegExp, what: string) =>
  v.pipe(v.string(), v.toLowerCase(), v.regex(pattern, `must be ${what}`));

/** One score of `POST /trace-scores` (the spec's score fields, plus `id` and `sessionId`). */
export const scoreInputSchema = v.strictObject({
  /** Update this existing score (it must be the caller's). */
  id: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  traceId: v.optional(lowerHex(TRACE_ID, '32 hex characters')),
  spanId: v.optional(v.nullable(lowerHex(SPAN_ID, '16 hex characters'))),
  sessionId: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(500))),
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  value: v.optional(v.union([v.pipe(v.number(), v.finite('must be a finite number')), v.boolean()], 'must be a number or a boolean')),
  stringValue: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(500))),
  comment: v.optional(v.pipe(v.string(), v.maxLength(5000, 'must be at most 5000 characters')), ''),
  source: v.optional(v.picklist(SCORE_SOURCES, `must be one of ${SCORE_SOURCES.join(', ')}`), 'api'),
  externalId: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(200))),
  deploymentId: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER))),
});
export type ScoreInput = v.InferOutput<typeof scoreInputSchema>;

export const MAX_SCORES_PER_REQUEST = 100;

export const writeScoresBodySchema = v.strictObject({
  scores: v.pipe(
    v.array(scoreInputSchema),
    v.minLength(1, 'must hold at least 1 score'),
    v.maxLength(MAX_SCORES_PER_REQUEST, `must hold at most ${MAX_SCORES_PER_REQUEST} scores`),
  ),
});

/** `PATCH /trace-scores/{id}`: what of a score may change. */
export const patchScoreSchema = v.pipe(
  v.strictObject({
    value: v.optional(v.union([v.pipe(v.number(), v.finite()), v.boolean()], 'must be a number or a boolean')),
    stringValue: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
    comment: v.optional(v.pipe(v.string(), v.maxLength(5000))),
  }),
  v.check((p) => Object.keys(p).length > 0, 'give at least one of value, stringValue, comment'),
  v.check((p) => !(p.value !== undefined && p.stringValue !== undefined), 'give value or stringValue, not both'),
);
export type ScorePatch = v.InferOutput<typeof patchScoreSchema>;

/** The rules between fields that a schema cannot say; each problem is a sentence. */
function scoreShapeProblems(score: ScoreInput): string[] {
  const problems: string[] = [];
  if ((score.value === undefined) === (score.stringValue === undefined)) {
    problems.push('give exactly one of value (number or boolean) and stringValue (label)');
  }
  const onTrace = score.traceId !== undefined;
  const onSession = score.sessionId !== undefined;
  if (onTrace === onSession && score.id === undefined) problems.push('give either traceId (with spanId for a span) or sessionId');
  if (onTrace && onSession) problems.push('give traceId or sessionId, not both');
  if (score.spanId && !onTrace) problems.push('spanId needs the traceId of its trace');
  if (score.deploymentId !== undefined && !onTrace) problems.push('deploymentId only applies to trace and span scores');
  return problems;
}

/**
 * What is wrong with a batch by itself, each problem under `scores[i]`: the shape rules of
 * each score, and one score written twice in the batch (the same id or externalId). These
 * are 400s; what only stored state shows (unknown targets, configs, owners) is left to the write.
 */
export function scoreBatchProblems(scores: readonly ScoreInput[]): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const firstOf = new Map<string, number>();
  scores.forEach((score, index) => {
    const shape = scoreShapeProblems(score);
    if (shape.length > 0) problems.push({ field: `scores[${index}]`, message: shape.join('; ') });
    const identity = score.id !== undefined ? `id:${score.id}` : score.externalId !== undefined ? `externalId:${score.externalId}` : undefined;
    if (identity === undefined) return;
    const earlier = firstOf.get(identity);
    if (earlier === undefined) firstOf.set(identity, index);
    else problems.push({ field: `scores[${index}]`, message: `scores[${earlier}] already writes this score (same id or externalId)` });
  });
  return problems;
}
