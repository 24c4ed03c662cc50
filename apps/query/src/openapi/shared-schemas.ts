import * as v from 'valibot';
import { ERROR_CODES, type ErrorCode } from '@aos/http';
import { SCORE_DATA_TYPES } from '@aos/storage';

/**
 * The pieces the answer schemas of every route folder are made of, and the answers more than
 * one folder gives. Requests are described by the schemas the routes validate with; answers
 * are built from storage records, so each route folder's are described field by field beside
 * its operations (operations/<folder>.ts), and the integration tests check every JSON answer
 * they get against them (test/support/openapi-check.ts).
 */

export const text = v.string();
export const nullableText = v.nullable(v.string());
export const count = v.pipe(v.number(), v.integer(), v.minValue(0));
export const time = v.pipe(v.string(), v.isoTimestamp());
export const nullableTime = v.nullable(time);
export const textMap = v.record(v.string(), v.string());
export const anyObject = v.record(v.string(), v.unknown());
export const usd = v.pipe(v.number(), v.description('USD, rounded to 1e-10'));

/** The one error shape of the API. */
export const errorEnvelope = v.object({
  error: v.object({
    code: v.picklist(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    message: text,
    /** Present when there is something to point at: each field in question and what is wrong with it. */
    details: v.optional(v.array(v.object({ field: v.optional(text), message: text }))),
    requestId: text,
  }),
});

/** A page of a list: its rows and the cursor of the next page (null on the last). */
export function page<S extends v.GenericSchema>(row: S) {
  return v.object({ data: v.array(row), nextCursor: nullableText });
}

/** A list answered whole. */
export function list<S extends v.GenericSchema>(row: S) {
  return v.object({ data: v.array(row) });
}

export const deleted = v.object({ id: text, deleted: v.literal(true) });

/** A score of a trace, span or session: trace-scores answers it, sessions and evaluator runs carry it. */
export const score = v.object({
  id: text,
  projectId: text,
  traceId: nullableText,
  spanId: nullableText,
  sessionId: nullableText,
  name: text,
  dataType: v.picklist(SCORE_DATA_TYPES),
  value: v.nullable(v.union([v.number(), v.boolean()])),
  stringValue: nullableText,
  comment: text,
  source: text,
  externalId: nullableText,
  deploymentId: v.nullable(v.number()),
  configId: nullableText,
  ownerKeyId: text,
  evaluatorId: nullableText,
  evaluatorVersion: v.nullable(v.number()),
  createdAt: time,
  updatedAt: time,
});
