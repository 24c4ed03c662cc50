import { createHash } from 'node:crypto';
import { compilePolicy, type CompiledPolicy, type MaskingPolicy } from '@aos/masking';

/**
 * A project's masking policy as it crosses to a decode thread: compiled rules (regular
 * expressions, closures) cannot be sent, so the thread compiles the source itself, once per
 * version.
 */
export interface MaskingSource {
  policy: MaskingPolicy;
  /** The project's key of the `hash` replacement (maskingHashKey). */
  hashKey: Uint8Array;
  /** Equal for equal policy and key: what a thread caches its compiled policy under. */
  version: string;
}

export function maskingSourceOf(policy: MaskingPolicy, hashKey: Uint8Array): MaskingSource {
  const version = createHash('sha256').update(JSON.stringify(policy)).update(hashKey).digest('base64url');
  return { policy, hashKey, version };
}

/** Compiled policies a thread keeps; past it the cache starts over (projects are few, edits rare). */
const MAX_CACHED_POLICIES = 1000;

/** Compiles each version of a policy once per thread. */
export function createPolicyCache(): (source: MaskingSource) => CompiledPolicy {
  const compiled = new Map<string, CompiledPolicy>();
  return (source) => {
    let policy = compiled.get(source.version);
    if (!policy) {
      if (compiled.size >= MAX_CACHED_POLICIES) compiled.clear();
      policy = compilePolicy(source.policy, { hashKey: source.hashKey });
      compiled.set(source.version, policy);
    }
    return policy;
  };
}
