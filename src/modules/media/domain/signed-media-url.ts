import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertMediaKey, isMediaKey } from './media-key.js';

/** Path under which the service serves locally stored media (DECISIONS 11). */
export const MEDIA_ROUTE = 'media';

/** Both parts of the query string that make a local media URL a credential. */
export interface MediaUrlProof {
  /** Unix seconds, decimal, as signed. */
  expires?: unknown;
  /** base64url HMAC-SHA-256 of the key and `expires`. */
  signature?: unknown;
}

export type MediaUrlCheck = 'valid' | 'expired' | 'forged';

const EXPIRES = /^\d{1,12}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * `/media/{key}?expires=…&signature=…`: the signature covers the key and the expiry, so
 * changing either (or the signature) makes the URL worthless. A version prefix in the
 * signed text lets the format change later without old signatures meaning something new.
 */
export function signedMediaPath(key: string, expiresAtSeconds: number, secret: Buffer): string {
  assertMediaKey(key);
  const expires = String(expiresAtSeconds);
  return `/${MEDIA_ROUTE}/${key}?expires=${expires}&signature=${sign(key, expires, secret)}`;
}

/**
 * Checks a request for `key` against its proof at `nowMs`. The signature is checked
 * before the expiry, so a URL whose expiry was edited is "forged", not "expired". A URL
 * is valid strictly before its expiry second. With `latestExpiryMs`, a genuine signature
 * on a later expiry counts as forged: the secret it was made with is trusted only for URLs
 * it could have issued in their normal lifetime (a secret being rotated away from, ADR 0003).
 */
export function checkMediaUrl(key: string, proof: MediaUrlProof, secret: Buffer, nowMs: number, latestExpiryMs = Infinity): MediaUrlCheck {
  const { expires, signature } = proof;
  if (!isMediaKey(key) || typeof expires !== 'string' || typeof signature !== 'string') return 'forged';
  if (!EXPIRES.test(expires) || !SIGNATURE.test(signature)) return 'forged';
  // Compared as text, not decoded bytes: the last base64url character carries two spare
  // bits, so two different signatures can decode to the same bytes.
  const expected = Buffer.from(sign(key, expires, secret), 'ascii');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'ascii'))) return 'forged';
  if (Number(expires) * 1000 > latestExpiryMs) return 'forged';
  return nowMs < Number(expires) * 1000 ? 'valid' : 'expired';
}

function sign(key: string, expires: string, secret: Buffer): string {
  return createHmac('sha256', secret).update(`media-url:v1\n${key}\n${expires}`, 'utf8').digest('base64url');
}
