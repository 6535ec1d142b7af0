import { WebhookVerificationError } from './errors.js';
import { deliveredEvent, flattenHeaders, type VerifiedWebhook, type WebhookHeaders } from './webhook-delivery.js';

/** Standard Webhooks' tolerance: a timestamp further than this from now is refused (a replay). */
const TOLERANCE_SECONDS = 5 * 60;

/**
 * `verifyWebhook` for edge runtimes (Cloudflare Workers, Vercel Edge, Deno, browsers'
 * workers): the Standard Webhooks check with Web Crypto's HMAC-SHA256 alone, hence
 * asynchronous. Same rules and answer as the Node entry's: the signature of
 * `{webhook-id}.{webhook-timestamp}.{body}` under the secret, one of the
 * `webhook-signature` values (two during a secret rotation), a timestamp within five
 * minutes, and `seq` from the unsigned `webhook-sequence` when present.
 */
export async function verifyWebhook(
  secret: string,
  body: string | Uint8Array,
  headers: WebhookHeaders,
  now: () => number = Date.now,
): Promise<VerifiedWebhook> {
  const flat = flattenHeaders(headers);
  const id = flat['webhook-id'];
  const timestamp = flat['webhook-timestamp'];
  const signatures = flat['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('webhook refused: missing required headers');
  const sentAt = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(now() / 1000 - sentAt) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError('webhook refused: the timestamp is more than five minutes off');
  }
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix);
  signed.set(bytes, prefix.length);
  const key = await globalThis.crypto.subtle.importKey('raw', secretBytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  let verified = false;
  for (const candidate of signatures.split(' ')) {
    const [version, signature] = candidate.split(',');
    if (version !== 'v1' || !signature) continue;
    const expected = base64Bytes(signature);
    // subtle.verify compares in constant time.
    if (expected && (await globalThis.crypto.subtle.verify('HMAC', key, expected, signed))) verified = true;
  }
  if (!verified) throw new WebhookVerificationError('webhook refused: no matching signature found');
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new WebhookVerificationError('webhook refused: the body is not JSON', { cause: error });
  }
  return deliveredEvent(payload, flat);
}

/** The key of a `whsec_…` secret: the base64 after the prefix. */
function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const key = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!key) throw new WebhookVerificationError('webhook refused: the secret is not a whsec_ secret');
  return key;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
  } catch {
    return undefined;
  }
}
