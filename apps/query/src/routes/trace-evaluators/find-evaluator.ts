import type { Queue } from 'bullmq';
import type { EvaluatorSettings } from '@aos/config';
import { ApiError, type KeyAuthenticator } from '@aos/http';
import type { Logger } from '@aos/log';
import type { EvaluationPayload } from '@aos/queue';
import { getEvaluator, type Storage, type StoredEvaluator } from '@aos/storage';

export interface EvaluatorRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  logger: Logger;
  evaluationQueue: Queue<EvaluationPayload>;
  evaluatorSettings: EvaluatorSettings;
}

export const EVALUATOR_ID = /^ev_[0-9a-f]{28}$/;

/** The evaluator named by the path in the key's project; another project's is "not found". */
export async function findEvaluator(storage: Storage, projectId: string, id: string): Promise<StoredEvaluator> {
  const evaluator = EVALUATOR_ID.test(id) ? await getEvaluator(storage, projectId, id) : null;
  if (!evaluator) throw new ApiError('not_found', `evaluator ${id} not found`);
  return evaluator;
}

