import type { ErrorDetails } from '../../../shared/errors/domain-error.js';
import type { BucketPolicy } from './rate-limit-store.js';

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers, current form):
 * `RateLimit-Policy: "<name>";q=<quota>;w=<window>` and `RateLimit: "<name>";r=<remaining>;t=<reset>`.
 * A token bucket holds `burst` tokens and refills `ratePerSecond`: its quota is the burst,
 * its window the seconds a full refill takes, and its reset the seconds until full again.
 */
export function rateLimitFields(policy: BucketPolicy, remaining: number): Record<string, string> {
  const left = Math.max(0, Math.floor(remaining));
  const window = Math.ceil(policy.burst / policy.ratePerSecond);
  const reset = Math.ceil((policy.burst - left) / policy.ratePerSecond);
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.burst};w=${window}`,
    RateLimit: `"${policy.name}";r=${left};t=${reset}`,
  };
}

/** Seconds until a bucket holding `remaining` tokens has `wanted` (one unless given) to spend. */
export function secondsUntilToken(policy: BucketPolicy, remaining: number, wanted = 1): number {
  return Math.max(1, Math.ceil((wanted - remaining) / policy.ratePerSecond));
}

/** What a refusal (429) tells: the quota's state and when to retry (the HTTP edge renders it as headers). */
export function refusalDetails(policy: BucketPolicy, remaining: number, wanted = 1): ErrorDetails {
  const fields = rateLimitFields(policy, remaining);
  return {
    rateLimit: { policy: fields['RateLimit-Policy'], remaining: fields.RateLimit },
    retryAfterSeconds: secondsUntilToken(policy, remaining, wanted),
  };
}
