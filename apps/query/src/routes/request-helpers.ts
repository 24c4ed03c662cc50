import type { Context } from 'hono';
import type * as v from 'valibot';
import { projectFor, queryParams, type AuthEnv } from '@aos/http';

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

/** The JSON body, or undefined when there is none or it does not parse (the schema then says "must be a JSON object"). */
export function jsonBody(c: Context): Promise<unknown> {
  return c.req.json().catch(() => undefined);
}
