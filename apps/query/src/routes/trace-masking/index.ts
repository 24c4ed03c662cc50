import { Hono } from 'hono';
import * as v from 'valibot';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import {
  DETECTOR_NAMES,
  MaskingPolicyError,
  compilePolicy,
  maskText,
  maskingHashKey,
  parsePolicy,
  type MaskingPolicy,
  type TextField,
} from '@aos/masking';
import type { SettingsChangePublisher } from '@aos/queue';
import { getMaskingPolicy, saveMaskingPolicy, type Storage } from '@aos/storage';
import { bodyLimitGuard } from '../../guards/body-limit.ts';
import { jsonBody, requestProject, strictBodyMessage } from '../../request-helpers.ts';

export interface TraceMaskingRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
  announceSettingsChange: SettingsChangePublisher;
  /** MASKING_HASH_KEY, so a test hashes as ingest will. */
  maskingHashKey: string;
}

/** Longest sample text of a test: a large prompt, not a data set. */
const MAX_TEST_TEXT_CHARS = 1_000_000;
/**
 * Largest body of a test: its text in any script (at most 3 bytes of UTF-8 a character) and a
 * draft policy (50 rules of patterns and attribute globs: well under 1 MiB).
 */
export const MASKING_TEST_BODY_MAX_BYTES = 3 * MAX_TEST_TEXT_CHARS + 1024 * 1024;

const FIELD_NAMES = ['input', 'output', 'events', 'statusMessage'] as const;
export const testSchema = v.strictObject(
  {
    policy: v.unknown(),
    text: v.pipe(v.string('must be a string'), v.maxLength(MAX_TEST_TEXT_CHARS, `must be at most ${MAX_TEST_TEXT_CHARS} characters`)),
    /** Which field the text stands for, so only the rules for it apply; all rules when absent. */
    field: v.optional(v.picklist(FIELD_NAMES, `must be one of ${FIELD_NAMES.join(', ')}`)),
    attributeKey: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
  },
  strictBodyMessage,
);

/**
 * The project's masking policy: read, replace as a whole, and try a draft on sample text.
 * Ingest applies the policy before spans are queued; a change is announced so every
 * ingest process drops its copy at once.
 */
export function traceMaskingRoutes(deps: TraceMaskingRouteDeps) {
  const app = new Hono<AuthEnv>();

  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const projectId = projectFor(c.var.apiKey, queryParams(c.req.url, { single: ['projectId'] }).projectId as string | undefined);
    const stored = await getMaskingPolicy(deps.storage, projectId);
    return c.json({
      projectId,
      policy: stored?.policy ?? { rules: [] },
      updatedAt: stored?.updatedAt ?? null,
      updatedBy: stored?.updatedBy ?? null,
      detectors: DETECTOR_NAMES,
    });
  });

  app.post('/', requireKey(deps.auth, 'write'), async (c) => {
    const projectId = requestProject(c);
    const policy = checkedPolicy(await jsonBody(c), 'body');
    const saved = await saveMaskingPolicy(deps.storage, { projectId, policy, updatedBy: c.var.apiKey.id });
    await deps.announceSettingsChange(projectId);
    return c.json({ projectId, policy: saved.policy, updatedAt: saved.updatedAt, updatedBy: saved.updatedBy, detectors: DETECTOR_NAMES });
  });

  // Nothing is stored: the draft is checked like a saved policy, then applied to the text.
  app.post('/test', bodyLimitGuard(MASKING_TEST_BODY_MAX_BYTES), requireKey(deps.auth, 'read'), async (c) => {
    const projectId = requestProject(c);
    const body = parseOrThrow(testSchema, await jsonBody(c), 'body');
    const policy = checkedPolicy(body.policy, 'body.policy');
    const compiled = compilePolicy(policy, { hashKey: maskingHashKey(deps.maskingHashKey, projectId) });
    const field: TextField | undefined = body.attributeKey !== undefined ? { attribute: body.attributeKey } : body.field;
    const result = maskText(compiled, body.text, field);
    return c.json({ masked: result.text, matches: result.matches });
  });

  return app;
}

/** The normalized policy, or a 400 listing every problem with its path. */
function checkedPolicy(input: unknown, root: string): MaskingPolicy {
  try {
    return parsePolicy(input);
  } catch (err) {
    if (!(err instanceof MaskingPolicyError)) throw err;
    const details = err.problems.map((p) => ({ field: p.field ? `${root}.${p.field}` : root, message: p.message }));
    throw new ApiError('invalid_request', `invalid masking policy: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`, details);
  }
}
