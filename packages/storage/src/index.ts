// The storage package: one line per domain folder; each folder's index names what it offers.
export * from './client/client.ts';
export { RowsRefusedError, clickhouseCodeOf, rowsRefusal, writeFailureWaits, type RefusalCategory } from './client/insert-refusal.ts';
export { nicenessOf } from './client/engine-thread-priority.ts';
export { budgetExceeded, budgetedStorage, runWithBudget, type QueryBudget } from './client/budget.ts';
export { migrate, loadMigrations, pendingMigrations, splitStatements } from './migrations.ts';
export * from './traces/index.ts';
export * from './spans/index.ts';
export * from './sessions/index.ts';
export * from './scores/index.ts';
export * from './monitors/index.ts';
export * from './evaluators/index.ts';
export * from './findings/index.ts';
export * from './exports/index.ts';
export * from './project-settings/index.ts';
export * from './keys/index.ts';
export * from './retention/index.ts';
export * from './metrics/index.ts';
