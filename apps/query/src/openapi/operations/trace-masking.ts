import * as v from 'valibot';
import { MASKING_TEST_BODY_MAX_BYTES, testSchema } from '../../routes/trace-masking/index.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { anyObject, count, nullableText, nullableTime, text } from '../shared-schemas.ts';

const maskingRule = v.looseObject({
  name: text,
  detector: v.optional(text),
  pattern: v.optional(text),
  replacement: v.optional(v.looseObject({ style: v.picklist(['type_tag', 'fixed', 'keep_last', 'hash']) })),
  fields: v.optional(anyObject),
});
/** A masking policy: its rules in order (docs/api.md, "Masking"; packages/masking/README.md has every field). */
export const maskingPolicy = v.object({ rules: v.array(maskingRule) });
export const maskingPolicyBody = v.object({
  projectId: text,
  policy: maskingPolicy,
  updatedAt: nullableTime,
  updatedBy: nullableText,
  detectors: v.array(text),
});
const maskingTestResult = v.object({
  masked: text,
  matches: v.array(v.object({ rule: text, detector: v.optional(text), start: count, end: count })),
});

export const maskingOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-masking',
    summary: "The project's masking policy",
    scope: 'read',
    query: [projectIdParam],
    responses: { 200: { description: 'The policy (no rules when none was saved) and the built-in detectors', json: maskingPolicyBody } },
  },
  {
    method: 'post',
    path: '/api/v1/trace-masking',
    summary: "Replace the project's masking policy as a whole",
    description: '`{"rules":[]}` turns masking off. Every ingest process drops its copy as soon as the change is announced.',
    scope: 'write',
    query: [projectIdParam],
    body: maskingPolicy,
    responses: { 200: { description: 'The saved policy', json: maskingPolicyBody } },
  },
  {
    method: 'post',
    path: '/api/v1/trace-masking/test',
    summary: 'Try a draft policy on sample text; nothing is stored',
    scope: 'read',
    query: [projectIdParam],
    // The route takes the policy as it comes and checks it as a saved one is checked.
    body: v.strictObject({ ...testSchema.entries, policy: maskingPolicy }),
    maxBodyBytes: MASKING_TEST_BODY_MAX_BYTES,
    responses: { 200: { description: 'The masked text and what matched where', json: maskingTestResult } },
  },
];
