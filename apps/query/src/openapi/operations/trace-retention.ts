import * as v from 'valibot';
import { retentionSchema } from '../../routes/trace-retention/index.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import { text, time } from '../shared-schemas.ts';

const days = v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('days; null: kept for ever')));
export const retention = v.object({
  projectId: text,
  days,
  defaultDays: days,
  override: v.nullable(v.object({ days, updatedAt: time, updatedBy: text })),
});

const retentionAnswer = { description: 'What applies, the default and the project\'s own setting', json: retention };

export const retentionOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-retention',
    summary: "How long the project's traces are kept",
    scope: 'read',
    query: [projectIdParam],
    responses: { 200: retentionAnswer },
  },
  {
    method: 'put',
    path: '/api/v1/trace-retention',
    summary: "Set the project's own retention (days; null: for ever)",
    description: "Shortening it deletes the traces past it, with what derives from them, on the writers' next retention pass.",
    scope: 'admin',
    query: [projectIdParam],
    body: retentionSchema,
    responses: { 200: retentionAnswer },
  },
  {
    method: 'delete',
    path: '/api/v1/trace-retention',
    summary: 'Back to the default retention (RETENTION_DAYS)',
    scope: 'admin',
    query: [projectIdParam],
    responses: { 200: retentionAnswer },
  },
];
