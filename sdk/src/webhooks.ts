import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import type { PartnerEvent } from './types.js';

/** Request headers as Node's `IncomingMessage.headers` or a fetch `Headers` gives them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, through the `standardwebhooks` package) with the endpoint's secret
 * (`whsec_…`), and returns its event, typed by `event`, with `seq` from `webhook-sequence`.
 *
 * `body` must be the raw body as received, before any JSON parsing. A timestamp more than
 * five minutes off, a bad signature or a missing header throws WebhookVerificationError:
 * answer 400 and the service retries the delivery. The same event may arrive twice (a retry
 * after a lost answer): drop repeats by `event_id` or `seq`. A `seq` more than one past the
 * last you processed means events are missing: read them from the feed (`client.events`).
 * `webhook-sequence` is not covered by the signature (the id, timestamp and body are), so
 * trust `seq` for ordering, and the signed `event_id` for identity.
 */
export function verifyWebhook(secret: string, body: string | Uint8Array, headers: WebhookHeaders): PartnerEvent {
  const flat = flatten(headers);
  const payload = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let event: unknown;
  try {
    event = new Webhook(secret).verify(payload, flat);
  } catch (error) {
    throw new WebhookVerificationError(`webhook refused: ${(error as Error).message}`, { cause: error });
  }
  const sequence = flat['webhook-sequence'];
  if (sequence === undefined || !/^\d+$/.test(sequence)) throw new WebhookVerificationError('webhook refused: no webhook-sequence header');
  if (typeof event !== 'object' || event === null || typeof (event as { event?: unknown }).event !== 'string') {
    throw new WebhookVerificationError('webhook refused: the body is not an event');
  }
  return { ...(event as PartnerEvent), seq: Number(sequence) };
}

function flatten(headers: WebhookHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  const entries: Iterable<[string, string | string[] | undefined]> = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
