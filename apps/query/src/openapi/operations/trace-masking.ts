import * as v from 'valibot';
import { MASKING_TEST_BODY_MAX_BYTES, testSchema } from '../../routes/trace-masking/index.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import * as s from '../schemas.ts';

export const maskingOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-masking',
    summary: "The project's masking policy",
    scope: 'read',
    query: [projectIdParam],
    responses: { 200: { description: 'The policy (no rules when none was saved) and the built-in detectors', json: s.maskingPolicyBody } },
  },
  {
    method: 'post',
    path: '/api/v1/trace-masking',
    summary: "Replace the project's masking policy as a whole",
    description: '`{"rules":[]}` turns masking off. Every ingest process drops its copy as soon as the change is announced.',
    scope: 'write',
    query: [projectIdParam],
    body: s.maskingPolicy,
    responses: { 200: { description: 'The saved policy', json: s.maskingPolicyBody } },
  },
  {
    method: 'post',
    path: '/api/v1/trace-masking/test',
    summary: 'Try a draft policy on sample text; nothing is stored',
    scope: 'read',
    query: [projectIdParam],
    // The route takes the policy as it comes and checks it as a saved one is checked.
    body: v.strictObject({ ...testSchema.entries, policy: s.maskingPolicy }),
    maxBodyBytes: MASKING_TEST_BODY_MAX_BYTES,
    responses: { 200: { description: 'The masked text and what matched where', json: s.maskingTestResult } },
  },
];
