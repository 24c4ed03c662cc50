/**
 * Resource-level facts, computed once per ResourceSpans and shared by its spans.
 */
import type { Attributes } from '@aos/otlp';
import { firstText, flattenAttributes, textOf, ValueLimiter } from '../attributes.ts';

export interface ResourceFacts {
  attributes: Record<string, string>;
  /** Some resource attribute was cut to the size limit. */
  truncated: boolean;
  serviceName: string;
  environment: string;
  sessionId: string | undefined;
  userId: string | undefined;
  /** An explicit `platform` resource attribute. */
  platform: string | undefined;
}

/** The current semconv name first, then the name deprecated in semconv 1.27, then the Langfuse SDKs'. */
export const ENVIRONMENT_KEYS = ['deployment.environment.name', 'deployment.environment', 'langfuse.environment'];
export const SESSION_KEYS = ['session.id'];
export const USER_KEYS = ['user.id', 'enduser.id'];

export function readResource(attributes: Attributes, maxValueBytes: number): ResourceFacts {
  const limiter = new ValueLimiter(maxValueBytes);
  const flat = flattenAttributes(attributes, limiter);
  return {
    attributes: flat,
    truncated: limiter.truncated,
    serviceName: textOf(attributes, 'service.name') ?? '',
    environment: firstText(attributes, ENVIRONMENT_KEYS) ?? '',
    sessionId: firstText(attributes, SESSION_KEYS),
    userId: firstText(attributes, USER_KEYS),
    platform: textOf(attributes, 'platform'),
  };
}
