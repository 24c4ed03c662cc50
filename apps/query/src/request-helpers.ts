import type { Context } from 'hono';
import type * as v from 'valibot';
import { ApiError, outboundUrlProblem, projectFor, queryParams, type AuthEnv } from '@aos/http';

/**
 * A strictObject words its own issues (unknown key, missing key, not an object) in
 * valibot's terms ("Expected never but received…"); this says them in the client's.
 */
export function strictBodyMessage(issue: v.StrictObjectIssue): string {
  if (issue.expected === 'never') return 'unknown field';
  return issue.path ? 'is required' : 'must be a JSON object';
}

/** The key's project; a `projectId` query parameter, the only one writes take, must name it. */
export function requestProject(c: Context<AuthEnv>): string {
  return projectFor(c.var.apiKey, queryParams(c.req.url, { single: ['projectId'] }).projectId as string | undefined);
}

/** The JSON body; undefined when there is none (the schema then says what is required); 400 when it is not JSON. */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('invalid_request', 'body: must be JSON', [{ field: 'body', message: 'must be JSON' }]);
  }
}

/** A URL the service will call (a webhook, a model endpoint) must be one it may call: else 400 naming `field`. */
export async function ensureOutboundUrl(url: string | null | undefined, allowPrivate: boolean, field: string): Promise<void> {
  const problem = url ? await outboundUrlProblem(url, allowPrivate) : null;
  if (problem) throw new ApiError('invalid_request', `${field}: ${problem}`, [{ field, message: problem }]);
}
