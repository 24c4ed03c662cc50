import { retentionSchema } from '../../routes/trace-retention/index.ts';
import { projectIdParam, type Operation } from '../operation.ts';
import * as s from '../schemas.ts';

const retention = { description: 'What applies, the default and the project\'s own setting', json: s.retention };

export const retentionOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/trace-retention',
    summary: "How long the project's traces are kept",
    scope: 'read',
    query: [projectIdParam],
    responses: { 200: retention },
  },
  {
    method: 'put',
    path: '/api/v1/trace-retention',
    summary: "Set the project's own retention (days; null: for ever)",
    description: "Shortening it deletes the traces past it, with what derives from them, on the writers' next retention pass.",
    scope: 'admin',
    query: [projectIdParam],
    body: retentionSchema,
    responses: { 200: retention },
  },
  {
    method: 'delete',
    path: '/api/v1/trace-retention',
    summary: 'Back to the default retention (RETENTION_DAYS)',
    scope: 'admin',
    query: [projectIdParam],
    responses: { 200: retention },
  },
];
