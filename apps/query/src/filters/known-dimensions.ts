import { ApiError } from '@aos/http';
import { listDimensionKeys, type Storage, type TraceFilter } from '@aos/storage';

/**
 * Refuses keys that are not dimensions of the project: a filter or grouping on one would
 * match nothing, silently. A 422: the request is well-formed, the project's stored
 * dimensions are what it conflicts with.
 */
export async function ensureDimensionKeys(storage: Storage, projectId: string, keys: readonly string[], field: string): Promise<void> {
  if (keys.length === 0) return;
  const known = new Set((await listDimensionKeys(storage, projectId)).map((d) => d.key));
  const unknown = keys.find((k) => !known.has(k));
  if (unknown === undefined) return;
  const message = `${JSON.stringify(unknown)} is not a dimension of this project; add it with POST /api/v1/trace-dimensions (dimensions: ${[...known].join(', ') || 'none'})`;
  throw new ApiError('unprocessable', `${field}: ${message}`, [{ field, message }]);
}

/** A saved filter (a monitor's, an evaluator's) may name only the project's dimensions. */
export async function ensureFilterDimensions(storage: Storage, projectId: string, filter: Pick<TraceFilter, 'dimensions'>): Promise<void> {
  await ensureDimensionKeys(storage, projectId, filter.dimensions?.map((d) => d.key) ?? [], 'filter.dim');
}
