/** Expiry of a project's traces and what derives from them (the pass that runs it: apps/writer/src/passes/retention.ts). */
export { EXPIRING_TABLES, expireProjectData, expirySteps, listProjectsWithData } from './expire.ts';
export type { ExpiryStep } from './expire.ts';
