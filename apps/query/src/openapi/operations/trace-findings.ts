import * as v from 'valibot';
import { limitParam } from '../../filters/pagination.ts';
import { filterSchema, patchSchema } from '../../routes/trace-findings/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import * as s from '../schemas.ts';

const filters = queryParametersOf(filterSchema, {
  status: 'repeat for several: any of them',
  severity: 'repeat for several: any of them',
  investigator: 'what found it',
});
const FINDING_ID = { id: 'finding id' };

export const findingOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-findings',
    summary: 'Findings, most recently seen first',
    scope: 'read',
    query: [...filters, ...queryParametersOf(v.object({ limit: limitParam(50), cursor: v.optional(v.string()) }))],
    responses: { 200: { description: 'A page of findings', json: s.page(s.finding) } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-findings/counts',
    summary: 'Counts per status and per severity, same filters',
    scope: 'read',
    query: filters,
    responses: { 200: { description: 'The counts', json: s.findingCounts } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-findings/{id}',
    summary: 'One finding with its change history',
    scope: 'read',
    pathParams: FINDING_ID,
    query: [projectIdParam],
    responses: { 200: { description: 'The finding', json: s.findingDetail } },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/api/v1/trace-findings/{id}',
    summary: 'Change the status or the assignee of a finding',
    description: 'Status moves: open → investigating, resolved, dismissed; investigating → open, resolved, dismissed; resolved and dismissed → open. Another move is a 409 naming the allowed ones.',
    scope: 'write',
    pathParams: FINDING_ID,
    query: [projectIdParam],
    body: patchSchema,
    responses: { 200: { description: 'The finding as changed, with its history', json: s.findingDetail } },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/api/v1/trace-findings/{id}/risk-assessment',
    summary: 'Assess (again) and store the risk of a finding',
    scope: 'write',
    pathParams: FINDING_ID,
    query: [projectIdParam],
    responses: { 201: { description: 'The assessment, also returned with the finding from now on', json: s.riskAssessment } },
    errors: [404],
  },
];
