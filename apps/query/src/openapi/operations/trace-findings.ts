import * as v from 'valibot';
import { FINDING_SEVERITIES } from '@aos/domain';
import { FINDING_ASSET_TYPES, FINDING_STATUSES, INVESTIGATOR_KINDS } from '@aos/storage';
import { limitParam } from '../../filters/pagination.ts';
import { filterSchema, patchSchema } from '../../routes/trace-findings/index.ts';
import { queryParametersOf } from '../json-schema.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { anyObject, count, nullableText, page, text, time } from '../shared-schemas.ts';

export const riskAssessment = v.looseObject({
  method: text,
  inputs: anyObject,
  frequencyPerDay: v.number(),
  likelihood: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)),
  impact: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5)),
  score: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(25)),
  level: v.picklist(FINDING_SEVERITIES),
  rationale: v.array(text),
  mitigations: v.array(text),
  assessedAt: time,
  assessedBy: text,
});
export const finding = v.object({
  id: text,
  projectId: text,
  dedupeKey: text,
  title: text,
  description: text,
  severity: v.picklist(FINDING_SEVERITIES),
  status: v.picklist(FINDING_STATUSES),
  investigator: v.object({ kind: v.picklist(INVESTIGATOR_KINDS), id: text }),
  asset: v.object({ type: v.picklist(FINDING_ASSET_TYPES), id: text }),
  assignee: nullableText,
  evidence: v.array(text),
  firstSeen: time,
  lastSeen: time,
  occurrences: count,
  riskAssessment: v.nullable(riskAssessment),
  createdAt: time,
  updatedAt: time,
});
export const findingDetail = v.object({
  ...finding.entries,
  history: v.array(v.object({ at: time, actor: text, field: v.picklist(['status', 'assignee']), from: nullableText, to: nullableText })),
});
const findingCounts = v.object({
  total: count,
  byStatus: v.record(v.string(), count),
  bySeverity: v.record(v.string(), count),
});

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
    responses: { 200: { description: 'A page of findings', json: page(finding) } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-findings/counts',
    summary: 'Counts per status and per severity, same filters',
    scope: 'read',
    query: filters,
    responses: { 200: { description: 'The counts', json: findingCounts } },
  },
  {
    method: 'get',
    path: '/api/v1/trace-findings/{id}',
    summary: 'One finding with its change history',
    scope: 'read',
    pathParams: FINDING_ID,
    query: [projectIdParam],
    responses: { 200: { description: 'The finding', json: findingDetail } },
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
    responses: { 200: { description: 'The finding as changed, with its history', json: findingDetail } },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/api/v1/trace-findings/{id}/risk-assessment',
    summary: 'Assess (again) and store the risk of a finding',
    scope: 'write',
    pathParams: FINDING_ID,
    query: [projectIdParam],
    responses: { 201: { description: 'The assessment, also returned with the finding from now on', json: riskAssessment } },
    errors: [404],
  },
];
