import { createPublicKey, type KeyObject } from 'node:crypto';
import { JwksClient, type SigningKey } from 'jwks-rsa';
import { ApiError } from '../../../../shared/errors/api-error.js';
import { JWKS_MAX_AGE_SECONDS } from '../../domain/token-issuers.js';
import type { VerificationKeys } from './issuer-jwt.strategy.js';

/** At most this many key-set fetches a minute for unknown kids: forged kids cost the platform nothing. */
const UNKNOWN_KID_FETCHES_PER_MINUTE = 10;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * The platform's public keys read from its key set URL. A `kid` is cached as long as the
 * platform's `Cache-Control` allows (the max-age it publishes); an unknown `kid` refetches
 * the set, which is how a rotated key is picked up.
 */
export function platformJwksKeys(jwksUri: string): VerificationKeys {
  const client = new JwksClient({
    jwksUri,
    cache: true,
    cacheMaxAge: JWKS_MAX_AGE_SECONDS * 1000,
    rateLimit: true,
    jwksRequestsPerMinute: UNKNOWN_KID_FETCHES_PER_MINUTE,
    timeout: FETCH_TIMEOUT_MS,
  });
  // jwks-rsa hands out PEM text; parsed once per key, since parsing costs more than verifying.
  const parsed = new WeakMap<SigningKey, KeyObject>();
  return async (kid) => {
    let key: SigningKey;
    try {
      key = await client.getSigningKey(kid);
    } catch (error) {
      return unknownOrUnavailable(error);
    }
    let publicKey = parsed.get(key);
    if (!publicKey) parsed.set(key, (publicKey = createPublicKey(key.getPublicKey())));
    return publicKey;
  };
}

/** A kid the set does not list (or too many such lookups) is an unknown key; an unreachable set is an outage. */
function unknownOrUnavailable(error: unknown): undefined {
  const name = (error as Error).name;
  if (name === 'SigningKeyNotFoundError' || name === 'JwksRateLimitError') return undefined;
  throw new ApiError('temporarily_unavailable', 'The service cannot fetch the token issuer\'s public keys. Retry shortly.', { 'Retry-After': '5' });
}
