import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import { deliveredEvent, flattenHeaders, type VerifiedWebhook, type WebhookHeaders } from './webhook-delivery.js';

/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, through the `standardwebhooks` package) with the endpoint's secret
 * (`whsec_…`), and returns its event, typed by `event`, with `seq` from `webhook-sequence`.
 *
 * `body` must be the raw body as received, before any JSON parsing. A timestamp more than
 * five minutes off, a bad signature or a missing signed header throws WebhookVerificationError:
 * answer 400 and the service retries the delivery. The same event may arrive twice (a retry
 * after a lost answer): drop repeats by `event_id`. A `seq` more than one past the last you
 * processed means events are missing: read them from the feed (`client.events`).
 * `webhook-sequence` is not covered by the signature (the id, timestamp and body are), so it
 * may be absent (`seq` undefined); trust `seq` for ordering, and the signed `event_id` for identity.
 * On an edge runtime, `@partner-reading/sdk/edge` verifies with Web Crypto instead (asynchronously).
 */
export function verifyWebhook(secret: string, body: string | Uint8Array, headers: WebhookHeaders): VerifiedWebhook {
  const flat = flattenHeaders(headers);
  const payload = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let event: unknown;
  try {
    event = new Webhook(secret).verify(payload, flat);
  } catch (error) {
    throw new WebhookVerificationError(`webhook refused: ${(error as Error).message}`, { cause: error });
  }
  return deliveredEvent(event, flat);
}
