import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets: the prefix, then the base64 of the key (DECISIONS 16). */
export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret carrying a 256-bit key. */
export function newEndpointSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` header of the Standard Webhooks specification: `v1,` and the
 * base64 HMAC-SHA-256 of `id.timestamp.body` under each secret's decoded key, separated by
 * spaces, so a receiver holding either secret during a rotation accepts the delivery.
 */
export function signatureHeader(secrets: readonly string[], messageId: string, timestamp: number, body: string): string {
  const signed = `${messageId}.${timestamp}.${body}`;
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
      return `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`;
    })
    .join(' ');
}
