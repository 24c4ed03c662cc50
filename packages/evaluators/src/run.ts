import { createHash } from 'node:crypto';
import type { EvaluatorSettings } from '@aos/config';
import type { Logger } from '@aos/log';
import {
  checkScoreAgainstConfig,
  evaluationItemKey,
  findActiveScoreConfigs,
  findArchivedScoreConfigNames,
  findScores,
  getEvaluatorApiKey,
  loadEvaluationContext,
  writeScoreVersions,
  type EvaluationContext,
  type EvaluationItem,
  type ScoreRecord,
  type Storage,
  type StoredEvaluator,
} from '@aos/storage';
import { runCheck } from './checks.ts';
import type { EvaluatorDefinition } from './definition.ts';
import { onEvaluatorItemFailed, onEvaluatorScored, type EvaluatorItemFailure } from './item-failed.ts';
import { parseJudgeReply, replyInstruction, type JudgedValue } from './judge-reply.ts';
import type { KeyedLimiter } from './limiter.ts';
import { ModelCallError, chatCompletion, type ChatMessage, type ModelCallSettings } from './model-client.ts';
import { renderPrompt } from './templates.ts';
import { resolveVariable } from './variables.ts';

/** What an evaluator run needs: storage, the service's model defaults, the per-evaluator limiter. */
export interface EvaluatorRuntime {
  storage: Storage;
  settings: EvaluatorSettings;
  limiter: KeyedLimiter;
  logger: Logger;
}

export type RunOutcome =
  | { status: 'scored'; scores: ScoreRecord[]; model?: { attempts: number; promptTokens: number; completionTokens: number } }
  | { status: 'failed'; reason: string };

const SYSTEM_PROMPT = 'You are an impartial evaluator of an AI agent\'s work. Judge only what you are shown.';
/** Reasoning longer than a score comment may be is cut. */
const MAX_COMMENT_CHARS = 5000;

export function definitionOf(evaluator: StoredEvaluator): EvaluatorDefinition {
  return evaluator.definition as unknown as EvaluatorDefinition;
}

/**
 * Judges one item and writes its score (source `eval`, naming the evaluator and its
 * version) through the scores' own write path, checked against the score config of its
 * name. The score id is derived from the evaluator and the item, so judging an item again
 * replaces its score instead of adding one. A failure writes nothing and is reported
 * through `onEvaluatorItemFailed`.
 */
export async function judgeItem(
  runtime: EvaluatorRuntime,
  evaluator: StoredEvaluator,
  item: EvaluationItem,
  origin: EvaluatorItemFailure['origin'],
  backfillId?: string,
): Promise<RunOutcome> {
  const definition = definitionOf(evaluator);
  const outcome = await runtime.limiter.run(evaluator.id, definition.concurrency, () => judge(runtime, evaluator, definition, item));
  if (outcome.status === 'scored') {
    for (const score of outcome.scores) await onEvaluatorScored(runtime.storage, evaluator, definition.check, item, score, runtime.logger);
  }
  if (outcome.status === 'failed') {
    await onEvaluatorItemFailed(
      runtime.storage,
      {
        projectId: evaluator.projectId,
        evaluatorId: evaluator.id,
        evaluatorVersion: evaluator.version,
        evaluatorName: evaluator.name,
        item,
        reason: outcome.reason,
        origin,
        ...(backfillId ? { backfillId } : {}),
      },
      runtime.logger,
    );
  }
  return outcome;
}

async function judge(runtime: EvaluatorRuntime, evaluator: StoredEvaluator, definition: EvaluatorDefinition, item: EvaluationItem): Promise<RunOutcome> {
  const context = await loadEvaluationContext(runtime.storage, evaluator.projectId, item);
  if (!context) return { status: 'failed', reason: `${describeItem(item)} not found in this project` };
  let judged: JudgedValue & { reasoning: string };
  let model: Extract<RunOutcome, { status: 'scored' }>['model'];
  if (definition.kind === 'check') {
    try {
      const result = runCheck(definition.check!, definition.target, context);
      judged = { value: result.value, stringValue: null, reasoning: result.reasoning };
    } catch (err) {
      return { status: 'failed', reason: `the check could not run: ${(err as Error).message}` };
    }
  } else {
    const settings = await modelSettings(runtime, evaluator, definition);
    if (!settings.baseUrl) return { status: 'failed', reason: 'no model endpoint: set model.baseUrl on the evaluator or EVALUATOR_MODEL_BASE_URL' };
    try {
      const reply = await chatCompletion(settings, judgeMessages(definition, context));
      const parsed = parseJudgeReply(reply.content, definition.output);
      if (!parsed.ok) return { status: 'failed', reason: `unusable reply: ${parsed.error}` };
      judged = parsed;
      model = { attempts: reply.attempts, ...reply.usage };
    } catch (err) {
      if (err instanceof ModelCallError) return { status: 'failed', reason: `model call failed: ${err.message}` };
      throw err;
    }
  }
  const written = await writeEvalScore(runtime.storage, evaluator, definition, item, judged);
  if (typeof written === 'string') return { status: 'failed', reason: written };
  return { status: 'scored', scores: [written], ...(model ? { model } : {}) };
}

/** The messages sent to a model judge for an item: the rendered template and the reply format. */
export function judgeMessages(definition: EvaluatorDefinition, context: EvaluationContext): ChatMessage[] {
  const values = Object.fromEntries(Object.entries(definition.variables).map(([name, path]) => [name, resolveVariable(path, context)]));
  return [
    { role: 'system', content: `${SYSTEM_PROMPT}\n${replyInstruction(definition.output)}` },
    { role: 'user', content: renderPrompt(definition.prompt ?? '', values) },
  ];
}

/** The evaluator's model options over the service's defaults. */
export async function modelSettings(runtime: EvaluatorRuntime, evaluator: StoredEvaluator, definition: EvaluatorDefinition): Promise<ModelCallSettings> {
  const s = runtime.settings;
  const options = definition.model;
  const ownKey = evaluator.apiKeySet ? await getEvaluatorApiKey(runtime.storage, evaluator.projectId, evaluator.id) : null;
  return {
    baseUrl: options?.baseUrl ?? s.defaultBaseUrl ?? '',
    model: options?.model ?? s.defaultModel,
    // An evaluator pointing at its own endpoint never receives the service's default key.
    apiKey: ownKey ?? (options?.baseUrl ? null : s.defaultApiKey),
    temperature: options?.temperature ?? 0,
    maxTokens: options?.maxTokens ?? 256,
    timeoutMs: options?.timeoutMs ?? s.timeoutMs,
    maxAttempts: options?.maxAttempts ?? s.maxAttempts,
    backoffMs: s.backoffMs,
    maxBackoffMs: s.maxBackoffMs,
    publicOnly: Boolean(options?.baseUrl) && !s.allowPrivateUrls,
  };
}

/** One score per (evaluator, item): its id is derived from them. */
export function evalScoreId(projectId: string, evaluatorId: string, item: EvaluationItem): string {
  const key = `${projectId}\u0000${evaluatorId}\u0000${evaluationItemKey(item)}\u0000${item.sessionId !== null ? 'session' : 'trace'}`;
  return `sc_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

async function writeEvalScore(
  storage: Storage,
  evaluator: StoredEvaluator,
  definition: EvaluatorDefinition,
  item: EvaluationItem,
  judged: JudgedValue & { reasoning: string },
): Promise<ScoreRecord | string> {
  const projectId = evaluator.projectId;
  const name = definition.scoreName;
  const id = evalScoreId(projectId, evaluator.id, item);
  const [configs, archived, existing] = await Promise.all([
    findActiveScoreConfigs(storage, projectId, [name]),
    findArchivedScoreConfigNames(storage, projectId, [name]),
    findScores(storage, projectId, [id]),
  ]);
  const config = configs.get(name);
  if (!config && archived.has(name)) return `score config "${name}" is archived and takes no new scores`;
  if (config) {
    const reason = checkScoreAgainstConfig(config, { value: judged.value, stringValue: judged.stringValue });
    if (reason) return `the score does not fit score config "${name}": ${reason}`;
  }
  const now = new Date().toISOString();
  const score: ScoreRecord = {
    id,
    projectId,
    traceId: item.sessionId !== null ? null : item.traceId,
    spanId: item.spanId,
    sessionId: item.sessionId,
    name,
    dataType: judged.stringValue !== null ? 'categorical' : typeof judged.value === 'boolean' ? 'boolean' : 'numeric',
    value: judged.value,
    stringValue: judged.stringValue,
    comment: judged.reasoning.slice(0, MAX_COMMENT_CHARS),
    source: 'eval',
    externalId: null,
    deploymentId: null,
    configId: config?.id ?? null,
    ownerKeyId: `evaluator:${evaluator.id}`,
    evaluatorId: evaluator.id,
    evaluatorVersion: evaluator.version,
    createdAt: existing.get(id)?.createdAt ?? now,
    updatedAt: now,
  };
  await writeScoreVersions(storage, [score]);
  return score;
}

function describeItem(item: EvaluationItem): string {
  if (item.sessionId !== null) return `session ${item.sessionId}`;
  return item.spanId !== null ? `span ${item.spanId} of trace ${item.traceId}` : `trace ${item.traceId}`;
}
