import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import { FINDING_SEVERITIES, assessRisk } from '@aos/domain';
import { ApiError, parseOrThrow, projectFor, queryParams, requireKey, type AuthEnv, type KeyAuthenticator } from '@aos/http';
import {
  FINDING_ASSET_TYPES,
  FINDING_STATUSES,
  FindingMoveError,
  INVESTIGATOR_KINDS,
  countFindings,
  findingHistory,
  findingReach,
  getFinding,
  listFindings,
  saveRiskAssessment,
  updateFinding,
  type ApiKeyRecord,
  type Finding,
  type FindingQuery,
  type Storage,
} from '@aos/storage';
import { definedOnly } from '../../filters/defined-only.ts';
import { MILLIS_CURSOR_PART, decodeKeyCursor, encodeKeyCursor, limitParam } from '../../filters/pagination.ts';
import { jsonBody } from '../../request-helpers.ts';

export interface FindingRouteDeps {
  storage: Storage;
  auth: KeyAuthenticator;
}

const FINDING_ID = /^fnd_[0-9a-f]{24}$/;
const FILTER_PARAMS = ['projectId', 'assetType', 'assetId', 'investigator', 'investigatorId'] as const;
const REPEATED_PARAMS = ['status', 'severity'] as const;

const oneOf = <T extends readonly [string, ...string[]]>(values: T) => v.picklist(values, `must be one of ${values.join(', ')}`);
const text = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(500, 'must be at most 500 characters'));

export const filterSchema = v.object({
  projectId: v.optional(v.string()),
  assetType: v.optional(oneOf(FINDING_ASSET_TYPES)),
  assetId: v.optional(text),
  investigator: v.optional(oneOf(INVESTIGATOR_KINDS)),
  investigatorId: v.optional(text),
  status: v.optional(v.array(oneOf(FINDING_STATUSES))),
  severity: v.optional(v.array(oneOf(FINDING_SEVERITIES))),
});

export const patchSchema = v.pipe(
  v.strictObject(
    {
      status: v.optional(oneOf(FINDING_STATUSES)),
      assignee: v.optional(v.nullable(v.pipe(v.string('must be a string or null'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')))),
    },
    (issue) => (issue.expected === 'never' ? 'unknown field; a finding changes only status and assignee' : 'must be a JSON object'),
  ),
  v.check((b) => b.status !== undefined || b.assignee !== undefined, 'give status or assignee'),
);

/** Findings of the caller's project: read to list and count, write to change and assess. */
export function findingRoutes(deps: FindingRouteDeps) {
  const app = new Hono<AuthEnv>();

  app.get('/', requireKey(deps.auth, 'read'), async (c) => {
    const raw = queryParams(c.req.url, { single: [...FILTER_PARAMS, 'limit', 'cursor'], repeated: REPEATED_PARAMS });
    const q = findingQuery(raw, c.var.apiKey);
    const page = parseOrThrow(v.object({ limit: limitParam(50), cursor: v.optional(v.string()) }), { limit: raw.limit, cursor: raw.cursor }, 'pagination');
    const before = page.cursor === undefined ? undefined : decodeKeyCursor(page.cursor, { seen: MILLIS_CURSOR_PART, id: FINDING_ID });
    const result = await listFindings(deps.storage, q, {
      limit: page.limit,
      ...(before ? { before: { lastSeenMs: Number(before.seen), id: before.id } } : {}),
    });
    return c.json({
      data: result.findings,
      nextCursor: result.next ? encodeKeyCursor({ seen: String(result.next.lastSeenMs), id: result.next.id }) : null,
    });
  });

  app.get('/counts', requireKey(deps.auth, 'read'), async (c) => {
    const raw = queryParams(c.req.url, { single: FILTER_PARAMS, repeated: REPEATED_PARAMS });
    return c.json(await countFindings(deps.storage, findingQuery(raw, c.var.apiKey)));
  });

  app.get('/:id', requireKey(deps.auth, 'read'), async (c) => {
    const finding = await found(c);
    return c.json({ ...finding, history: await findingHistory(deps.storage, finding.projectId, finding.id) });
  });

  app.patch('/:id', requireKey(deps.auth, 'write'), async (c) => {
    const finding = await found(c);
    const body = parseOrThrow(patchSchema, await jsonBody(c), 'body');
    let updated: Finding | null;
    try {
      updated = await updateFinding(deps.storage, finding.projectId, finding.id, definedOnly(body), c.var.apiKey.id);
    } catch (err) {
      if (err instanceof FindingMoveError) throw new ApiError('conflict', err.message, [{ field: 'status', message: err.message }]);
      throw err;
    }
    if (!updated) throw new ApiError('not_found', `finding ${finding.id} not found`);
    return c.json({ ...updated, history: await findingHistory(deps.storage, updated.projectId, updated.id) });
  });

  app.post('/:id/risk-assessment', requireKey(deps.auth, 'write'), async (c) => {
    const finding = await found(c);
    const reach = await findingReach(deps.storage, finding.projectId, finding.evidence);
    const assessment = assessRisk({
      severity: finding.severity,
      occurrences: finding.occurrences,
      firstSeenMs: Date.parse(finding.firstSeen),
      lastSeenMs: Date.parse(finding.lastSeen),
      ...reach,
      investigatorKind: finding.investigator.kind,
    });
    const saved = await saveRiskAssessment(deps.storage, finding, {
      ...assessment,
      assessedAt: new Date().toISOString(),
      assessedBy: c.var.apiKey.id,
    });
    return c.json(saved.riskAssessment, 201);
  });

  /** The finding named by the path, in the key's project; another project's is "not found". */
  async function found(c: Context<AuthEnv>): Promise<Finding> {
    const id = c.req.param('id')!;
    const projectId = projectFor(c.var.apiKey, queryParams(c.req.url, { single: ['projectId'] }).projectId as string | undefined);
    const finding = FINDING_ID.test(id) ? await getFinding(deps.storage, projectId, id) : null;
    if (!finding) throw new ApiError('not_found', `finding ${id} not found`);
    return finding;
  }

  return app;
}

function findingQuery(raw: Record<string, string | string[]>, key: ApiKeyRecord): FindingQuery {
  const { limit: _limit, cursor: _cursor, ...filters } = raw;
  const parsed = parseOrThrow(filterSchema, filters, 'filter');
  return {
    projectId: projectFor(key, parsed.projectId),
    ...definedOnly({
      assetType: parsed.assetType,
      assetId: parsed.assetId,
      investigatorKind: parsed.investigator,
      investigatorId: parsed.investigatorId,
      statuses: parsed.status,
      severities: parsed.severity,
    }),
  };
}
